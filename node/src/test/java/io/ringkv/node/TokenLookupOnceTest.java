package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.client.RingHttpClient;
import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.TokenFile;
import io.ringkv.node.access.TokenRegistry;
import io.ringkv.ops.BearerToken;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code --auth-file}, a request's token is looked up once: the check at the request's head
 * is carried to the handler ({@code Request.admissionNote}) instead of being made again there, over
 * HTTP/1.1 and h2c, with and without a body.
 */
class TokenLookupOnceTest {
    @TempDir
    Path dir;

    @Test
    void eachRequestLooksItsTokenUpOnce() throws Exception {
        Path file = dir.resolve("tokens");
        String token = BearerToken.generate();
        TokenFile.add(file, new Grant("app", AccessScope.parseList("read,write"), null), BearerToken.sha256(token));
        TokenRegistry registry = TokenRegistry.load(file);
        try (Node node = Node.start(NodeConfig.singleNode(0, Files.createDirectory(dir.resolve("data"))).withTokens(registry));
             HttpClient h1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
             HttpClient h2c = RingHttpClient.newBuilder().http2PriorKnowledge(true).version(HttpClient.Version.HTTP_2).build()) {
            for (HttpClient client : new HttpClient[] {h1, h2c}) {
                long before = registry.lookups();
                HttpRequest put = HttpRequest.newBuilder(URI.create(node.url() + "/v0/entity?id=k"))
                        .header("Authorization", "Bearer " + token).PUT(BodyPublishers.ofString("value")).build();
                assertThat(client.send(put, BodyHandlers.discarding()).statusCode(), is(201));
                assertThat("lookups for one PUT", registry.lookups() - before, is(1L));
                HttpRequest get = HttpRequest.newBuilder(URI.create(node.url() + "/v0/entity?id=k"))
                        .header("Authorization", "Bearer " + token).build();
                assertThat(client.send(get, BodyHandlers.discarding()).statusCode(), is(200));
                assertThat("lookups for a PUT and a GET", registry.lookups() - before, is(2L));
                HttpRequest delete = HttpRequest.newBuilder(URI.create(node.url() + "/v0/entity?id=k"))
                        .header("Authorization", "Bearer " + token).DELETE().build();
                client.send(delete, BodyHandlers.discarding());
            }
        }
    }
}

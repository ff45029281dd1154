package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.ringkv.node.SharedNodeKeys.OwnNode;
import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.KeyPrefix;
import io.ringkv.node.access.TokenFile;
import io.ringkv.node.access.TokenRegistry;
import io.ringkv.ops.BearerToken;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Access control of one node started with a token file, over real sockets, over HTTP/1.1 (the
 * JDK's client) and h2c (ringkv's client): which requests need which token, and what the answers
 * without one say (RFC 6750 §3); reloading the file; a node without a file is unchanged.
 */
@ParameterizedClass(name = "{0}")
@ValueSource(strings = {"HTTP_1_1", "H2C"})
class AccessControlTest {
    private static final String CHALLENGE = "Bearer realm=\"ringkv\"";

    /**
     * The node, token file and tokens of every test, of both protocols, not marked OwnNode (those
     * change the file, or write and list the tenant's keys); each test's keys are its own (SharedNodeKeys).
     */
    @RegisterExtension
    static final SharedNode<TokenNode> NODES = new SharedNode<>(TokenNode.class, TokenNode::start, TokenNode::node);

    @Parameter
    String protocol;

    private Path file;
    private TokenRegistry registry;
    private NodeRequests requests;
    private String reader;
    private String writer;
    private String admin;
    private String tenant;

    /** A node started with a token file of four tokens: a reader, a writer, an admin, a writer of {@code tenant-a/} only. */
    private record TokenNode(Path file, TokenRegistry registry, Node node, String reader, String writer, String admin,
                             String tenant) {
        /** In {@code directory}: the node's data in one folder, the token file in another. */
        static TokenNode start(Path directory) throws Exception {
            Path data = Files.createDirectory(directory.resolve("data"));
            Path file = Files.createDirectory(directory.resolve("access")).resolve("tokens");
            String reader = addToken(file, "reader", "read", null);
            String writer = addToken(file, "app", "read,write", null);
            String admin = addToken(file, "ops", "admin", null);
            String tenant = addToken(file, "tenant-a", "read,write", "tenant-a/");
            TokenRegistry registry = TokenRegistry.load(file);
            return new TokenNode(file, registry, Node.start(NodeConfig.singleNode(0, data).withTokens(registry)), reader, writer,
                    admin, tenant);
        }
    }

    @BeforeEach
    void openRequests(TokenNode setup, SharedNodeKeys testKeys) {
        file = setup.file();
        registry = setup.registry();
        reader = setup.reader();
        writer = setup.writer();
        admin = setup.admin();
        tenant = setup.tenant();
        requests = new NodeRequests(setup.node(), testKeys, protocol);
    }

    @AfterEach
    void closeRequests() {
        requests.close();
    }

    private String addToken(String name, String scopes, String prefix) throws Exception {
        return addToken(file, name, scopes, prefix);
    }

    private static String addToken(Path file, String name, String scopes, String prefix) throws Exception {
        String token = BearerToken.generate();
        TokenFile.add(file, new Grant(name, AccessScope.parseList(scopes), prefix == null ? null : KeyPrefix.parse(prefix)),
                BearerToken.sha256(token));
        return token;
    }

    private HttpResponse<String> send(String method, String target, String body, String... headers) throws Exception {
        return requests.text(method, target, body, headers);
    }

    private HttpResponse<String> as(String token, String method, String target, String body) throws Exception {
        return send(method, target, body, "Authorization", "Bearer " + token);
    }

    private static List<String> challenges(HttpResponse<?> response) {
        return response.headers().allValues("WWW-Authenticate");
    }

    @Test
    void aRequestWithoutATokenIs401WithABearerChallenge() throws Exception {
        for (String[] request : new String[][] {{"GET", "/v0/entity?id=k"}, {"PUT", "/v0/entity?id=k"},
                {"DELETE", "/v0/entity?id=k"}, {"GET", "/v0/entities?start=a"}, {"GET", "/nowhere"}}) {
            HttpResponse<String> response = send(request[0], request[1], request[0].equals("PUT") ? "v" : null);
            assertThat(request[0] + " " + request[1], response.statusCode(), is(401));
            assertThat(challenges(response), contains(CHALLENGE));
            assertThat(response.body(), containsString("Authorization: Bearer"));
        }
    }

    @Test
    void anUnknownTokenIs401InvalidToken() throws Exception {
        HttpResponse<String> response = as(BearerToken.generate(), "GET", "/v0/entity?id=k", null);
        assertThat(response.statusCode(), is(401));
        assertThat(challenges(response).getFirst(), allOf(containsString(CHALLENGE), containsString("error=\"invalid_token\"")));
        assertThat(response.body(), containsString("not valid"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Bearer", "Bearer two words", "Token abc", "Basic !!!", "Basic " + "bm9jb2xvbg==", "Bearer a\"b"})
    void aMalformedAuthorizationFieldIs401WithAMessage(String field) throws Exception {
        HttpResponse<String> response = send("GET", "/v0/entity?id=k", null, "Authorization", field);
        assertThat(field, response.statusCode(), is(401));
        assertThat(challenges(response).getFirst(), allOf(containsString(CHALLENGE), containsString("error=\"invalid_request\"")));
        assertThat(response.body(), containsString("Authorization"));
    }

    @Test
    void twoAuthorizationFieldsAre401() throws Exception {
        HttpResponse<String> response = send("GET", "/v0/entity?id=k", null, "Authorization", "Bearer " + writer,
                "Authorization", "Bearer " + reader);
        assertThat(response.statusCode(), is(401));
        assertThat(response.body(), containsString("2 Authorization fields"));
    }

    @Test
    void aReadTokenReadsButCannotWrite() throws Exception {
        assertThat(as(reader, "GET", "/v0/entity?id=k", null).statusCode(), is(404));
        assertThat(as(reader, "GET", "/v0/entities?start=a", null).statusCode(), is(200));
        for (String method : List.of("PUT", "DELETE")) {
            HttpResponse<String> refused = as(reader, method, "/v0/entity?id=k", method.equals("PUT") ? "v" : null);
            assertThat(method, refused.statusCode(), is(403));
            assertThat(challenges(refused).getFirst(), allOf(containsString("error=\"insufficient_scope\""),
                    containsString("scope=\"write\"")));
            assertThat(refused.body(), allOf(containsString("'reader'"), containsString("write")));
        }
    }

    @Test
    void aWriteTokenWrites() throws Exception {
        assertThat(as(writer, "PUT", "/v0/entity?id=k", "v1").statusCode(), is(201));
        HttpResponse<String> read = as(writer, "GET", "/v0/entity?id=k", null);
        assertThat(read.statusCode(), is(200));
        assertThat(read.body(), is("v1"));
        assertThat(as(writer, "DELETE", "/v0/entity?id=k", null).statusCode(), is(202));
    }

    @OwnNode
    @Test
    void aPrefixTokenReachesOnlyKeysWithItsPrefix() throws Exception {
        assertThat(as(tenant, "PUT", "/v0/entity?id=tenant-a/1", "mine").statusCode(), is(201));
        assertThat(as(tenant, "GET", "/v0/entity?id=tenant-a%2F1", null).body(), is("mine"));
        assertThat(as(writer, "PUT", "/v0/entity?id=tenant-b/1", "theirs").statusCode(), is(201));

        HttpResponse<String> outside = as(tenant, "GET", "/v0/entity?id=tenant-b/1", null);
        assertThat(outside.statusCode(), is(403));
        assertThat(outside.body(), containsString("tenant-a/"));
        assertThat(as(tenant, "PUT", "/v0/entity?id=tenant-b/1", "overwritten").statusCode(), is(403));
        assertThat(as(tenant, "DELETE", "/v0/entity?id=tenant", null).statusCode(), is(403));
        assertThat(as(writer, "GET", "/v0/entity?id=tenant-b/1", null).body(), is("theirs"));

        HttpResponse<String> range = as(tenant, "GET", "/v0/entities?start=tenant-a/&end=tenant-a0", null);
        assertThat(range.statusCode(), is(200));
        assertThat(range.body(), is("tenant-a/1\nmine"));
        HttpResponse<String> openEnded = as(tenant, "GET", "/v0/entities?start=tenant-a/", null);
        assertThat(openEnded.statusCode(), is(403));
        assertThat(openEnded.body(), containsString("end=tenant-a0"));
        assertThat(as(tenant, "GET", "/v0/entities?start=a&end=z", null).statusCode(), is(403));
        assertThat(as(tenant, "GET", "/v0/entities?start=tenant-a/&end=tenant-b", null).statusCode(), is(403));
    }

    /** The next page's link moves only the start, within the prefix, so a prefix token can follow it. */
    @OwnNode
    @Test
    void aPrefixTokenFollowsTheNextLinksOfItsPagedRange() throws Exception {
        for (String id : List.of("tenant-a/1", "tenant-a/2", "tenant-a/3")) {
            assertThat(as(tenant, "PUT", "/v0/entity?id=" + id, "v").statusCode(), is(201));
        }
        assertThat(as(writer, "PUT", "/v0/entity?id=tenant-a0", "outside").statusCode(), is(201));
        StringBuilder keys = new StringBuilder();
        String target = "/v0/entities?start=tenant-a/&end=tenant-a0&limit=2&keysOnly=true";
        while (target != null) {
            HttpResponse<String> page = as(tenant, "GET", target, null);
            assertThat(target, page.statusCode(), is(200));
            keys.append(page.body());
            target = page.headers().firstValue("Link").map(link -> link.substring(1, link.indexOf('>'))).orElse(null);
        }
        assertThat(keys.toString(), is("tenant-a/1\ntenant-a/2\ntenant-a/3\n"));
    }

    @Test
    void metricsAndTheDashboardNeedTheAdminScope() throws Exception {
        for (String path : List.of("/metrics", "/ui/", "/ui/api/cluster", "/ui/api/events")) {
            HttpResponse<String> anonymous = send("GET", path, null);
            assertThat(path, anonymous.statusCode(), is(401));
            // A browser shows its login prompt for Basic; the token is the password.
            assertThat(path, challenges(anonymous), contains(CHALLENGE, "Basic realm=\"ringkv\", charset=\"UTF-8\""));
            HttpResponse<String> notAdmin = as(writer, "GET", path, null);
            assertThat(path, notAdmin.statusCode(), is(403));
            assertThat(path, challenges(notAdmin).getFirst(), containsString("scope=\"admin\""));
            assertThat(path, as(admin, "GET", path, null).statusCode(), is(200));
            String basic = Base64.getEncoder().encodeToString(("anyone:" + admin).getBytes(StandardCharsets.UTF_8));
            assertThat(path, send("GET", path, null, "Authorization", "Basic " + basic).statusCode(), is(200));
        }
        assertThat(as(admin, "GET", "/v0/entity?id=k", null).statusCode(), is(403));
    }

    @Test
    void theStatusStaysOpenForHealthChecks() throws Exception {
        assertThat(send("GET", "/v0/status", null).statusCode(), is(200));
        assertThat(as(BearerToken.generate(), "GET", "/v0/status", null).statusCode(), is(200));
    }

    @OwnNode
    @Test
    void aReloadAddsAndRemovesTokens() throws Exception {
        String added = addToken("added", "read,write", null);
        assertThat("not before the reload", as(added, "PUT", "/v0/entity?id=k", "v").statusCode(), is(401));
        String without = String.join("\n", Files.readAllLines(file).stream().filter(line -> !line.startsWith("reader ")).toList());
        Files.writeString(file, without + "\n");

        assertThat(registry.reload(), is(true));
        assertThat(as(added, "PUT", "/v0/entity?id=k", "v").statusCode(), is(201));
        assertThat(as(reader, "GET", "/v0/entity?id=k", null).statusCode(), is(401));
        assertThat(as(writer, "GET", "/v0/entity?id=k", null).statusCode(), is(200));
    }

    @OwnNode
    @Test
    void aTokenPastItsExpiryIs401InvalidTokenAndOneBeforeItServes() throws Exception {
        String expired = BearerToken.generate();
        TokenFile.add(file, new Grant("expired", AccessScope.parseList("read,write"), null, Instant.parse("2020-01-01T00:00:00Z")),
                BearerToken.sha256(expired));
        String current = BearerToken.generate();
        TokenFile.add(file, new Grant("current", AccessScope.parseList("read,write"), null, Instant.now().plus(Duration.ofDays(1))),
                BearerToken.sha256(current));
        assertThat(registry.reload(), is(true));

        for (String[] request : new String[][] {{"GET", "/v0/entity?id=k"}, {"PUT", "/v0/entity?id=k"}}) {
            HttpResponse<String> refused = as(expired, request[0], request[1], request[0].equals("PUT") ? "v" : null);
            assertThat(refused.statusCode(), is(401));
            assertThat(challenges(refused).getFirst(), allOf(containsString("error=\"invalid_token\""),
                    containsString("error_description=\"Expired token\"")));
            assertThat(refused.body(), containsString("token 'expired' expired at 2020-01-01T00:00:00Z"));
        }
        assertThat("nothing was written", as(writer, "GET", "/v0/entity?id=k", null).statusCode(), is(404));
        assertThat(as(current, "PUT", "/v0/entity?id=k", "v").statusCode(), is(201));
        assertThat(as(current, "GET", "/v0/entity?id=k", null).statusCode(), is(200));

        String metrics = as(admin, "GET", "/metrics", null).body();
        assertThat(metrics, allOf(containsString("ringkv_access_expiry_timestamp_seconds{name=\"expired\"} 1.5778368E9"),
                containsString("ringkv_access_expiry_timestamp_seconds{name=\"current\"}"),
                not(containsString("ringkv_access_expiry_timestamp_seconds{name=\"app\"}")),
                containsString("ringkv_access_entries{kind=\"token\"} 6")));
    }

    @OwnNode
    @Test
    void aFileThatDoesNotReadOnReloadKeepsTheTokens() throws Exception {
        Files.writeString(file, "app read,write sha256:00\n", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
        assertThat(registry.reload(), is(false));
        assertThat(as(writer, "PUT", "/v0/entity?id=k", "v").statusCode(), is(201));
        assertThat(as(reader, "GET", "/v0/entity?id=k", null).statusCode(), is(200));
    }

    @Test
    void theFileHoldsHashesNeverTokens() throws Exception {
        String text = Files.readString(file);
        for (String token : List.of(reader, writer, admin, tenant)) {
            assertThat(text, not(containsString(token)));
            assertThat(text, not(containsString(token.substring(4, 20))));
            assertThat(text, containsString("sha256:" + HexFormat.of().formatHex(BearerToken.sha256(token))));
        }
    }
}

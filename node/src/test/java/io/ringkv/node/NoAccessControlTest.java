package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Without a token file a node answers as it always did: no token needed, an Authorization field ignored. */
class NoAccessControlTest {
    @TempDir
    Path data;

    @Test
    void everyRouteAnswersWithoutAToken() throws Exception {
        try (Node node = Node.start(NodeConfig.singleNode(0, data))) {
            assertThat(RawHttp.send(node.port(), "PUT", "/v0/entity?id=k", Map.of(), "v".getBytes()).status(), is(201));
            assertThat(RawHttp.get(node.port(), "/v0/entity?id=k").status(), is(200));
            assertThat(RawHttp.get(node.port(), "/v0/entities?start=a").status(), is(200));
            assertThat(RawHttp.get(node.port(), "/metrics").status(), is(200));
            assertThat(RawHttp.get(node.port(), "/ui/").status(), is(200));
            assertThat(RawHttp.get(node.port(), "/v0/status").status(), is(200));
            assertThat(RawHttp.send(node.port(), "GET", "/v0/entity?id=k", Map.of("Authorization", "Bearer nonsense"),
                    new byte[0]).status(), is(200));
        }
    }
}

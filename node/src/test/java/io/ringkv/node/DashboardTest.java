package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import io.ringkv.node.SharedNodeKeys.OwnNode;
import io.ringkv.node.dashboard.ClusterOverview;
import io.ringkv.ops.JsonText;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard of one node, in process, over raw sockets (so that request targets reach the
 * server exactly as written, {@code ..} included): its files, what is not one of its files, and
 * the parameters and answers of its JSON endpoints. The browser test is DashboardIT.
 */
class DashboardTest {

    /**
     * The node of every test not marked OwnNode: those read only the dashboard's files and per-key
     * answers, and no two of them name the same key, so none sees what another did.
     */
    @RegisterExtension
    static final SharedNode<Node> NODES = SharedNode.of(data -> NodeConfig.singleNode(0, data));

    private Node node;

    @BeforeEach
    void takeNode(Node testNode) {
        node = testNode;
    }

    @Test
    void servesItsThreeFilesWithTheirTypesAndValidators() throws Exception {
        Map<String, String> types = Map.of("/ui/", "text/html; charset=utf-8", "/ui/app.js", "text/javascript; charset=utf-8",
                "/ui/app.css", "text/css; charset=utf-8");
        for (var file : types.entrySet()) {
            RawHttp.Reply reply = get(file.getKey());
            assertThat(file.getKey(), reply.status(), is(200));
            assertThat(file.getKey(), reply.headers().get("content-type"), is(file.getValue()));
            assertThat(reply.headers().get("cache-control"), is("no-cache"));
            assertThat(reply.headers().get("x-content-type-options"), is("nosniff"));
            assertThat(reply.headers().get("content-security-policy"), containsString("script-src 'self'"));
            String etag = reply.headers().get("etag");
            assertThat(etag, matchesPattern("\"[0-9a-f]{16}\""));
            RawHttp.Reply again = RawHttp.send(node.port(), "GET", file.getKey(), Map.of("If-None-Match", etag), new byte[0]);
            assertThat(file.getKey() + " revalidated", again.status(), is(304));
            assertThat(again.body().length, is(0));
        }
        String page = text(get("/ui/"));
        assertThat(page, containsString("<script src=\"app.js\" defer></script>"));
        assertThat("nothing from another origin", page, not(matchesPattern("(?s).*(https?:|src=\"//|href=\"//).*")));
        assertThat(text(get("/ui/app.js")), containsString("api/cluster"));
    }

    @Test
    void theRootWithoutSlashRedirectsSoRelativeUrlsResolveUnderIt() throws Exception {
        RawHttp.Reply reply = get("/ui");
        assertThat(reply.status(), is(301));
        assertThat(reply.headers().get("location"), is("/ui/"));
    }

    @Test
    void anyOtherNameIsNotFoundWhateverItsDotsAndSlashes() throws Exception {
        for (String target : List.of("/ui/index.html", "/ui/../metrics", "/ui/..%2fmetrics", "/ui/%2e%2e/metrics", "/ui/%2e%2e/",
                "/ui/./app.js", "/ui//app.js", "/ui/app.js/", "/ui/APP.JS", "/ui/app.js%00", "/ui/app.js;.css",
                "/ui/api/../../metrics", "/ui/api/", "/ui/api/nope", "/ui/api/cluster/")) {
            RawHttp.Reply reply = get(target);
            assertThat(target, reply.status(), is(404));
            assertThat(target, text(reply), not(containsString("ringkv_requests_total")));
        }
        assertThat("a path that only starts like the dashboard's is the API's", get("/uix").status(), is(400));
    }

    @Test
    void filesAnswerGetAndHeadOnlyAndTheDataGetOnly() throws Exception {
        RawHttp.Reply post = RawHttp.send(node.port(), "POST", "/ui/app.js", Map.of(), new byte[0]);
        assertThat(post.status(), is(405));
        assertThat(post.headers().get("allow"), is("GET, HEAD"));
        for (String target : List.of("/ui/api/cluster", "/ui/api/key?id=k", "/ui/api/events")) {
            for (String method : List.of("POST", "PUT", "DELETE")) {
                RawHttp.Reply reply = RawHttp.send(node.port(), method, target, Map.of(), new byte[0]);
                assertThat(method + " " + target, reply.status(), is(405));
                assertThat(reply.headers().get("allow"), is("GET"));
            }
        }
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> head = client.send(HttpRequest.newBuilder(URI.create(node.url() + "/ui/app.css"))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(head.statusCode(), is(200));
            assertThat(head.body(), is(""));
        }
    }

    @Test
    void theKeyLookupChecksItsKey() throws Exception {
        for (String target : List.of("/ui/api/key", "/ui/api/key?id=", "/ui/api/key?id=%zz", "/ui/api/key?id=" + "k".repeat(4097))) {
            RawHttp.Reply reply = get(target);
            String shown = target.length() > 40 ? target.substring(0, 40) + "... (" + target.length() + " chars)" : target;
            assertThat(shown, reply.status(), is(400));
            assertThat(shown, text(reply), containsString("'id'"));
        }
        assertThat(get("/ui/api/key?id=" + "k".repeat(4096)).status(), is(200));
    }

    @Test
    void theKeyLookupShowsWhatTheReplicaHoldsWithoutItsValue() throws Exception {
        assertThat(holds(get("/ui/api/key?id=k%C3%A9")), is("absent"));
        assertThat(RawHttp.send(node.port(), "PUT", "/v0/entity?id=k%C3%A9", Map.of(), "secret!".getBytes(StandardCharsets.UTF_8))
                .status(), is(201));
        String json = text(get("/ui/api/key?id=k%C3%A9"));
        assertThat(json, startsWith("{\"key\":\"ké\",\"defaultReplicas\":\"1/1\",\"replicas\":[{\"node\":\"" + node.url()
                + "\",\"rank\":1,\"holds\":\"value\",\"timestamp\":\""));
        assertThat(json, matchesPattern(".*\"timestamp\":\"\\d+\",\"writtenAt\":\"\\d{4}-\\d\\d-\\d\\dT[^\"]+Z\",\"stampedBy\":\""
                + node.url() + "\",\"valueBytes\":7,\"error\":null}]}"));
        assertThat(json, not(containsString("secret!")));
        assertThat(RawHttp.send(node.port(), "DELETE", "/v0/entity?id=k%C3%A9", Map.of(), new byte[0]).status(), is(202));
        assertThat(holds(get("/ui/api/key?id=k%C3%A9")), is("tombstone"));
    }

    @OwnNode
    @Test
    void theClusterViewChecksSinceAndLeavesOutOlderHistory() throws Exception {
        for (String since : List.of("", "abc", "-1", "1e3", "%zz", "1234567890123456789")) {
            RawHttp.Reply reply = get("/ui/api/cluster?since=" + since);
            assertThat("since=" + since, reply.status(), is(400));
            assertThat(text(reply), containsString("since"));
        }
        RawHttp.Reply first = get("/ui/api/cluster");
        assertThat(first.status(), is(200));
        assertThat(first.headers().get("content-type"), is("application/json"));
        assertThat(first.headers().get("cache-control"), is("no-store"));
        String json = text(first);
        assertThat(json, startsWith("{\"self\":\"" + node.url() + "\",\"at\":"));
        assertThat(json, containsString("{\"node\":\"" + node.url() + "\",\"self\":true,\"health\":\"up\",\"detail\":null,"
                + "\"seenBySelf\":\"self\""));
        long at = JsonText.numberField(json, "at").orElseThrow().longValue();
        assertThat(json, containsString("\"history\":[{\"at\":" + at + ","));
        // Asked again at once: the same snapshot (one reading a second serves every open dashboard).
        String again = text(get("/ui/api/cluster?since=" + at));
        assertThat(JsonText.numberField(again, "at").orElseThrow().longValue(), is(at));
        assertThat(again, containsString("\"history\":[]"));
    }

    @OwnNode
    @Test
    void aSecondSnapshotHasTheRequestRateSinceTheFirst() throws Exception {
        get("/ui/api/cluster");
        for (int i = 0; i < 20; i++) {
            RawHttp.send(node.port(), "PUT", "/v0/entity?id=r" + i, Map.of(), new byte[] {1});
        }
        Thread.sleep(ClusterOverview.REUSE_NANOS / 1_000_000 + 100);
        String json = text(get("/ui/api/cluster"));
        double perSecond = JsonText.numberField(json, "perSecond").orElseThrow();
        assertThat("20 PUTs in about a second: " + json, perSecond > 5, is(true));
        assertThat(json, matchesPattern(".*\"p50Millis\":\\d+\\.\\d{3},\"p99Millis\":\\d+\\.\\d{3}.*"));
    }

    @Test
    void eachNodeRowCarriesTheMetadataEpochItsStatusNames() throws Exception {
        String json = text(get("/ui/api/cluster"));
        assertThat(json, matchesPattern(".*\"diskBytes\":\\w+,\"metadataEpoch\":[01],\"member\":\"[a-z-]+\"}.*"));
    }

    @OwnNode
    @Test
    void theEventsEndpointListsThisNodesEvents() throws Exception {
        RawHttp.Reply reply = get("/ui/api/events");
        assertThat(reply.status(), is(200));
        assertThat(text(reply), is("{\"node\":\"" + node.url() + "\",\"events\":[]}"));
    }

    @Test
    void aForeignHostGets421AndTheNodesOwnNamesGetTheDashboard() throws Exception {
        assertThat(RawHttp.send(node.port(), "PUT", "/v0/entity?id=k", Map.of(), "v".getBytes(StandardCharsets.UTF_8)).status(),
                is(201));
        // A page on evil.example whose name now resolves to this node: its requests carry its own name.
        for (String target : List.of("/ui/api/key?id=k", "/ui/api/cluster", "/ui/api/events", "/ui/", "/ui/app.js", "/ui")) {
            RawHttp.Reply reply = withHost("evil.example:" + node.port(), target);
            assertThat(target, reply.status(), is(421));
            assertThat(target, text(reply), containsString("--ui-allowed-hosts"));
            assertThat(target, text(reply), not(containsString("\"holds\"")));
        }
        assertThat(withHost("evil.example.:" + node.port(), "/ui/api/cluster").status(), is(421));
        assertThat(withHost("127.0.0.1.evil.example", "/ui/api/cluster").status(), is(421));
        assertThat("no Host at all", RawHttp.send(node.port(), "GET", "/ui/api/cluster", Map.of("Host", ""), new byte[0]).status(),
                is(421));

        // The node's URL host, and the other loopback names of a node on 127.0.0.1.
        for (String host : List.of("127.0.0.1:" + node.port(), "localhost:" + node.port(), "LOCALHOST", "[::1]:" + node.port())) {
            assertThat(host, withHost(host, "/ui/api/key?id=k").status(), is(200));
        }
        // A load balancer's health check and a scraper ask under whatever name they were given.
        assertThat(withHost("lb.example", "/v0/status").status(), is(200));
        assertThat(withHost("lb.example", "/metrics").status(), is(200));
    }

    @Test
    void namesGivenByFlagAreAllowedToo(@TempDir Path otherData) throws Exception {
        try (Node named = Node.start(NodeConfig.singleNode(0, otherData).withUiAllowedHosts(List.of("RingKV.example.org")))) {
            assertThat(RawHttp.send(named.port(), "GET", "/ui/api/cluster", Map.of("Host", "ringkv.example.org:8443"), new byte[0])
                    .status(), is(200));
            assertThat(RawHttp.send(named.port(), "GET", "/ui/api/cluster", Map.of("Host", "evil.example"), new byte[0]).status(),
                    is(421));
        }
    }

    private RawHttp.Reply withHost(String host, String target) throws Exception {
        return RawHttp.send(node.port(), "GET", target, Map.of("Host", host), new byte[0]);
    }

    private RawHttp.Reply get(String target) throws Exception {
        return RawHttp.get(node.port(), target);
    }

    private static String text(RawHttp.Reply reply) {
        return new String(reply.body(), StandardCharsets.UTF_8);
    }

    private static String holds(RawHttp.Reply reply) {
        assertThat(reply.status(), is(200));
        return JsonText.stringField(text(reply), "holds").orElseThrow();
    }
}

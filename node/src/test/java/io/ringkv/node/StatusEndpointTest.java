package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.Headers;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ResponseBody;
import io.ringkv.ops.JsonText;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The status endpoint's answer in each phase of a node's life, without a cluster joined yet. */
class StatusEndpointTest {

    private final NodeLifecycle lifecycle = new NodeLifecycle();
    private final StatusEndpoint endpoint = new StatusEndpoint(lifecycle);

    @Test
    void startingIs503WithJson() throws Exception {
        endpoint.nodeUrl("http://127.0.0.1:9");
        Response response = get();
        assertThat(response.status(), is(503));
        assertThat(response.headers().first("Retry-After").orElse(""), is("1"));
        String json = body(response);
        assertThat(JsonText.stringField(json, "state").orElseThrow(), is("starting"));
        assertThat(JsonText.stringField(json, "node").orElseThrow(), is("http://127.0.0.1:9"));
        assertThat("no topology before the cluster is joined", json.contains("\"topology\":null"), is(true));
    }

    @Test
    void servingIs200AndStoppingIs503() throws Exception {
        lifecycle.serving();
        assertThat(get().status(), is(200));
        lifecycle.stopping();
        Response stopping = get();
        assertThat(stopping.status(), is(503));
        assertThat(JsonText.stringField(body(stopping), "state").orElseThrow(), is("stopping"));
    }

    @Test
    void theNodeUrlIsEscaped() throws Exception {
        endpoint.nodeUrl("http://h/\"quoted\"\\");
        assertThat(JsonText.stringField(body(get()), "node").orElseThrow(), is("http://h/\"quoted\"\\"));
    }

    private Response get() throws Exception {
        return endpoint.handle(new Request("GET", "/v0/status", null, new Headers(), new byte[0], null, io.ringkv.http.server.Protocol.HTTP_1_1))
                .toCompletableFuture().get();
    }

    private static String body(Response response) {
        return new String(((ResponseBody.Fixed) response.body()).bytes(), StandardCharsets.UTF_8);
    }
}

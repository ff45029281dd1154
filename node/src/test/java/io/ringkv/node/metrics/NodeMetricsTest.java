package io.ringkv.node.metrics;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.ReplicaCallListener;
import io.ringkv.http.Headers;
import io.ringkv.http.server.ExchangeListener;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Request;
import io.ringkv.store.InMemoryStorageEngine;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Metrics on and off ({@code serve --metrics}): on, what the recorders are told shows in the scrape;
 * off, the server and the coordinator get their "tell nobody" listeners, so a request does no
 * metrics work, and there is nothing to scrape.
 */
class NodeMetricsTest {
    private static final Request GET = new Request("GET", "/v0/entity", "id=k", new Headers(), new byte[0], null,
            Protocol.HTTP_1_1);
    private static final ClusterNode PEER = ClusterNode.parse("http://127.0.0.1:8081");

    @Test
    void onRecordsWhatItsListenersAreToldAndCollectsWhatItWatches() {
        NodeMetrics metrics = new NodeMetrics();
        metrics.watch(new InMemoryStorageEngine());
        metrics.requestListener().onResponse(GET, 200, 150_000);
        metrics.replicaCallListener().onReplicaCall(PEER, 400_000, null);

        assertThat(metrics.enabled(), is(true));
        String text = new String(metrics.scrape(), StandardCharsets.UTF_8);
        assertThat(text, containsString("ringkv_requests_total{operation=\"get\",status=\"200\"} 1.0"));
        assertThat(text, containsString("ringkv_replica_calls_total{outcome=\"ok\",peer=\"http://127.0.0.1:8081\"} 1.0"));
        assertThat(text, containsString("ringkv_storage_keys_written_total"));
        assertThat(text, containsString("jvm_memory_used_bytes"));
    }

    @Test
    void offHandsOutListenersThatTellNobodyAndHasNothingToScrape() {
        NodeMetrics metrics = NodeMetrics.off();
        metrics.watch(new InMemoryStorageEngine());

        assertThat(metrics.enabled(), is(false));
        assertThat(metrics.requestListener(), is(sameInstance(ExchangeListener.NONE)));
        assertThat(metrics.replicaCallListener(), is(sameInstance(ReplicaCallListener.NONE)));
        IllegalStateException error = assertThrows(IllegalStateException.class, metrics::scrape);
        assertThat(error.getMessage(), containsString("metrics are off"));
        assertThat("on is not off", new NodeMetrics().requestListener(), is(not(sameInstance(ExchangeListener.NONE))));
    }
}

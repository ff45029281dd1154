package io.ringkv.cluster;

import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.StorageEngine;
import java.net.http.HttpClient;
import java.time.Duration;

/** One cluster secret and topology for tests of the internal plane, and the parts made with them. */
final class TestAuth {
    static final ClusterSecret SECRET = ClusterSecret.of("a test secret that is long enough");
    static final String TOPOLOGY = "0123456789abcdef";

    private TestAuth() {
    }

    static InternalAuth auth() {
        return new InternalAuth(SECRET, "http://127.0.0.1:1", TOPOLOGY, System::currentTimeMillis);
    }

    static InternalAuth auth(ClusterSecret secret, String topology) {
        return new InternalAuth(secret, "http://127.0.0.1:1", topology, System::currentTimeMillis);
    }

    /** The default bound of 500 ms, against the given clock, for a cluster of three. */
    static ClockSkew skew(HybridLogicalClock clock) {
        return new ClockSkew(clock, ClusterSettings.DEFAULT_MAX_CLOCK_OFFSET.toMillis(), java.util.Set.of("http://127.0.0.1:1"));
    }

    static ReplicaClient client(HttpClient http, Duration timeout) {
        return new ReplicaClient(http, timeout, auth(), new TopologyWatch(TOPOLOGY));
    }

    static InternalApiHandler handler(StorageEngine engine, HybridLogicalClock clock) {
        return new InternalApiHandler(engine, clock, auth(), new TopologyWatch(TOPOLOGY), null, skew(clock));
    }

    static InternalApiHandler handler(StorageEngine engine, HybridLogicalClock clock, AntiEntropy antiEntropy) {
        return new InternalApiHandler(engine, clock, auth(), new TopologyWatch(TOPOLOGY), antiEntropy, skew(clock));
    }
}

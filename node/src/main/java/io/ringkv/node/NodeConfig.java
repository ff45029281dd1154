package io.ringkv.node;

import io.ringkv.cluster.AntiEntropySettings;
import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.ClusterSettings;
import io.ringkv.cluster.HintSettings;
import io.ringkv.cluster.InterNodeTransport;
import io.ringkv.http.server.ServerConfig;
import io.ringkv.store.Durability;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything a node needs to start; built from the command line or by tests.
 * {@code secret} is required with more than one node in {@code clusterUrls}, else may be null;
 * {@code clockOffsetForTests} shifts this node's wall clock (zero outside fault tests);
 * {@code drainDelay} is how long a stopping node answers {@code /v0/status} with 503 while it
 * still serves, before it stops accepting (so load balancers take it out first; zero by default).
 */
public record NodeConfig(String host, int port, Path dataDir, List<String> clusterUrls, long maxBodyBytes,
                         Durability durability, Duration replicaTimeout, Duration shutdownGrace,
                         int inFlightMax, int handlerThreads, InterNodeTransport interNodeTransport,
                         HintSettings hints, AntiEntropySettings antiEntropy, Duration tombstoneGrace,
                         ClusterSecret secret, Duration maxClockOffset, Duration clockOffsetForTests,
                         int rangeStreamsMax, int connectionsMax, Duration drainDelay) {

    /** Cluster ranges open at once, by default. */
    public static final int RANGE_STREAMS_MAX_DEFAULT = 16;

    public static NodeConfig singleNode(int port, Path dataDir) {
        return new NodeConfig("127.0.0.1", port, dataDir, List.of(), 16L << 20, Durability.PROCESS_CRASH,
                Duration.ofSeconds(1), Duration.ofSeconds(5),
                ServerConfig.IN_FLIGHT_MAX_DEFAULT, ServerConfig.handlerThreadsDefault(), InterNodeTransport.defaults(),
                HintSettings.defaults(), AntiEntropySettings.defaults(), ClusterSettings.DEFAULT_TOMBSTONE_GRACE, null,
                ClusterSettings.DEFAULT_MAX_CLOCK_OFFSET, Duration.ZERO, RANGE_STREAMS_MAX_DEFAULT,
                ServerConfig.CONNECTIONS_MAX_DEFAULT, Duration.ZERO);
    }

    public NodeConfig withCluster(List<String> urls) {
        return new NodeConfig(host, port, dataDir, urls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockOffsetForTests, rangeStreamsMax, connectionsMax, drainDelay);
    }

    public NodeConfig withSecret(ClusterSecret clusterSecret) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, clusterSecret,
                maxClockOffset, clockOffsetForTests, rangeStreamsMax, connectionsMax, drainDelay);
    }

    public NodeConfig withDrainDelay(Duration delay) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockOffsetForTests, rangeStreamsMax, connectionsMax, delay);
    }

    public NodeConfig withMaxBodyBytes(long bytes) {
        return new NodeConfig(host, port, dataDir, clusterUrls, bytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockOffsetForTests, rangeStreamsMax, connectionsMax, drainDelay);
    }
}

package io.ringkv.node;

import io.ringkv.cluster.AntiEntropySettings;
import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.ClusterSettings;
import io.ringkv.cluster.HintSettings;
import io.ringkv.cluster.InterNodeTransport;
import io.ringkv.http.server.ServerConfig;
import io.ringkv.http.server.ServerTls;
import io.ringkv.node.access.TokenRegistry;
import io.ringkv.store.Durability;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything a node needs to start; built from the command line or by tests.
 * {@code secret} is required with more than one node in {@code clusterUrls}, else may be null;
 * {@code clockShift} shifts this node's wall clock ({@link ClockShift#NONE} outside fault tests);
 * {@code drainDelay} is how long a stopping node answers {@code /v0/status} with 503 while it
 * still serves, before it stops accepting (so load balancers take it out first; zero by default);
 * {@code tls}, when not null, makes the node serve https: its URL is {@code https://host:port},
 * every URL of its cluster must be https, and {@code interNodeTransport} should trust the peers'
 * certificates ({@link InterNodeTransport#trust()}); {@code metrics} false records no metrics and
 * answers {@code /metrics} with 404 ({@code serve --metrics off}); {@code readSpareDelay} is how long
 * a read waits for its first {@code ack} replicas before it asks the others too (zero: asks every
 * replica at once; {@code serve --read-spare-delay}); {@code tokens}, when not null, is the
 * access control of {@code serve --auth-file} ({@link AccessControl}); {@code idleTimeout} closes a
 * client connection that has no request under way for that long, and {@code headerTimeout} one
 * whose request head takes longer to arrive ({@code serve --idle-timeout}, {@code --header-timeout});
 * {@code uiAllowedHosts} are names besides the node's own under which its dashboard answers
 * ({@code serve --ui-allowed-hosts}, {@link DashboardHosts}); {@code metaVoters} is how many
 * members vote in the cluster metadata's Raft group, 3 or 5 ({@code serve --meta-voters}; fewer in
 * a smaller cluster); {@code replicationFactor} is how many nodes own each key until the cluster
 * metadata says otherwise, and the value a new metadata group starts with ({@code serve
 * --replication-factor}; 0 for the default, 3 or every node of a smaller cluster); {@code
 * conditionalWrites} serves PUT/DELETE with {@code If-Match}, {@code If-None-Match} or {@code
 * If-Unmodified-Since} as a compare-and-set (the default); false ({@code serve
 * --no-conditional-writes}) refuses them with 501.
 */
public record NodeConfig(String host, int port, Path dataDir, List<String> clusterUrls, long maxBodyBytes,
                         Durability durability, Duration replicaTimeout, Duration shutdownGrace,
                         int inFlightMax, int handlerThreads, InterNodeTransport interNodeTransport,
                         HintSettings hints, AntiEntropySettings antiEntropy, Duration tombstoneGrace,
                         ClusterSecret secret, Duration maxClockOffset, ClockShift clockShift,
                         int rangeStreamsMax, int connectionsMax, Duration drainDelay, ServerTls tls,
                         boolean metrics, Duration readSpareDelay, TokenRegistry tokens, Duration idleTimeout,
                         Duration headerTimeout, List<String> uiAllowedHosts, int metaVoters, int replicationFactor,
                         boolean conditionalWrites) {

    /** Cluster ranges open at once, by default. */
    public static final int RANGE_STREAMS_MAX_DEFAULT = 16;

    public static NodeConfig singleNode(int port, Path dataDir) {
        return new NodeConfig("127.0.0.1", port, dataDir, List.of(), 16L << 20, Durability.PROCESS_CRASH,
                Duration.ofSeconds(1), Duration.ofSeconds(5),
                ServerConfig.IN_FLIGHT_MAX_DEFAULT, ServerConfig.handlerThreadsDefault(), InterNodeTransport.defaults(),
                HintSettings.defaults(), AntiEntropySettings.defaults(), ClusterSettings.DEFAULT_TOMBSTONE_GRACE, null,
                ClusterSettings.DEFAULT_MAX_CLOCK_OFFSET, ClockShift.NONE, RANGE_STREAMS_MAX_DEFAULT,
                ServerConfig.CONNECTIONS_MAX_DEFAULT, Duration.ZERO, null, true,
                io.ringkv.cluster.CoordinatorSettings.DEFAULT_READ_SPARE_DELAY, null, ServerConfig.IDLE_TIMEOUT_DEFAULT,
                ServerConfig.HEADER_READ_TIMEOUT_DEFAULT, List.of(), io.ringkv.cluster.meta.MetadataSettings.DEFAULT_VOTERS, 0, true);
    }

    public NodeConfig withCluster(List<String> urls) {
        return new NodeConfig(host, port, dataDir, urls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, tls, metrics, readSpareDelay, tokens, idleTimeout, headerTimeout, uiAllowedHosts, metaVoters, replicationFactor, conditionalWrites);
    }

    public NodeConfig withSecret(ClusterSecret clusterSecret) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, clusterSecret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, tls, metrics, readSpareDelay, tokens, idleTimeout, headerTimeout, uiAllowedHosts, metaVoters, replicationFactor, conditionalWrites);
    }

    public NodeConfig withDrainDelay(Duration delay) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, delay, tls, metrics, readSpareDelay, tokens, idleTimeout, headerTimeout, uiAllowedHosts, metaVoters, replicationFactor, conditionalWrites);
    }

    /** Serves https (TLS, h2 or HTTP/1.1 by ALPN) instead of http; peers must then be https too. */
    public NodeConfig withTls(ServerTls serverTls) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, serverTls, metrics, readSpareDelay, tokens, idleTimeout, headerTimeout, uiAllowedHosts, metaVoters, replicationFactor, conditionalWrites);
    }

    /** With {@code false}, the node records no metrics and {@code /metrics} answers 404 ({@code serve --metrics off}). */
    public NodeConfig withMetrics(boolean on) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, tls, on, readSpareDelay, tokens, idleTimeout, headerTimeout, uiAllowedHosts, metaVoters, replicationFactor, conditionalWrites);
    }

    public NodeConfig withReadSpareDelay(Duration delay) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, tls, metrics, delay, tokens, idleTimeout,
                headerTimeout, uiAllowedHosts, metaVoters, replicationFactor, conditionalWrites);
    }

    /** With the given client connection timeouts ({@code serve --idle-timeout}, {@code --header-timeout}). */
    public NodeConfig withClientTimeouts(Duration idle, Duration header) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, tls, metrics, readSpareDelay, tokens, idle,
                header, uiAllowedHosts, metaVoters, replicationFactor, conditionalWrites);
    }

    /**
     * With a token registry, every request but {@code /v0/status} and the internal plane needs a
     * token with the route's scope ({@code serve --auth-file}); null: no access control.
     */
    public NodeConfig withTokens(TokenRegistry registry) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, tls, metrics, readSpareDelay, registry,
                idleTimeout, headerTimeout, uiAllowedHosts, metaVoters, replicationFactor, conditionalWrites);
    }

    /** Names besides its own under which the node's dashboard answers ({@link DashboardHosts}). */
    public NodeConfig withUiAllowedHosts(List<String> names) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, tls, metrics, readSpareDelay, tokens,
                idleTimeout, headerTimeout, List.copyOf(names), metaVoters, replicationFactor, conditionalWrites);
    }

    /** With {@code voters} voting members of the metadata group, 3 or 5 ({@code serve --meta-voters}). */
    public NodeConfig withMetaVoters(int voters) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, tls, metrics, readSpareDelay, tokens,
                idleTimeout, headerTimeout, uiAllowedHosts, voters, replicationFactor, conditionalWrites);
    }

    /** With {@code rf} nodes owning each key ({@code serve --replication-factor}); 0 for the default. */
    public NodeConfig withReplicationFactor(int rf) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, tls, metrics, readSpareDelay, tokens,
                idleTimeout, headerTimeout, uiAllowedHosts, metaVoters, rf, conditionalWrites);
    }

    /** The scheme of this node's URL: https with TLS, http without. */
    public String scheme() {
        return tls == null ? "http" : "https";
    }

    public NodeConfig withMaxBodyBytes(long bytes) {
        return new NodeConfig(host, port, dataDir, clusterUrls, bytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, tls, metrics, readSpareDelay, tokens, idleTimeout, headerTimeout, uiAllowedHosts, metaVoters, replicationFactor, conditionalWrites);
    }

    /**
     * With {@code on} (the default), conditional writes are served as a compare-and-set; off
     * ({@code serve --no-conditional-writes}) they are refused with 501, see {@link PublicApi}.
     */
    public NodeConfig withConditionalWrites(boolean on) {
        return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace,
                inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret,
                maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, tls, metrics, readSpareDelay, tokens,
                idleTimeout, headerTimeout, uiAllowedHosts, metaVoters, replicationFactor, on);
    }
}

package io.ringkv.node;

import io.ringkv.cluster.AntiEntropySettings;
import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.ClusterSettings;
import io.ringkv.cluster.HintSettings;
import io.ringkv.cluster.InterNodeTransport;
import io.ringkv.http.server.ServerConfig;
import io.ringkv.http.server.ServerTls;
import io.ringkv.node.access.TokenRegistry;
import io.ringkv.node.dashboard.DashboardHosts;
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
 * --no-conditional-writes}) refuses them with 501. {@code joinUrl} is a member of a running cluster
 * this node asks to join ({@code serve --join}), or null for a node of a {@code --cluster} list;
 * {@code replaceUrl} the dead member it takes the place of ({@code serve --replace}), or null.
 * {@code streamBytesPerSecond} is the pace of this node's hand-overs ({@code serve --stream-rate},
 * {@link ClusterSettings#streamBytesPerSecond}).
 */
public record NodeConfig(String host, int port, Path dataDir, List<String> clusterUrls, long maxBodyBytes,
                         Durability durability, Duration replicaTimeout, Duration shutdownGrace,
                         int inFlightMax, int handlerThreads, InterNodeTransport interNodeTransport,
                         HintSettings hints, AntiEntropySettings antiEntropy, Duration tombstoneGrace,
                         ClusterSecret secret, Duration maxClockOffset, ClockShift clockShift,
                         int rangeStreamsMax, int connectionsMax, Duration drainDelay, ServerTls tls,
                         boolean metrics, Duration readSpareDelay, TokenRegistry tokens, Duration idleTimeout,
                         Duration headerTimeout, List<String> uiAllowedHosts, int metaVoters, int replicationFactor,
                         boolean conditionalWrites, String joinUrl, String replaceUrl, long streamBytesPerSecond) {

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
                ServerConfig.HEADER_READ_TIMEOUT_DEFAULT, List.of(), io.ringkv.cluster.meta.MetadataSettings.DEFAULT_VOTERS, 0, true, null, null,
                ClusterSettings.DEFAULT_STREAM_BYTES_PER_SECOND);
    }

    /** Joins the running cluster of the member at {@code url} ({@code serve --join}) instead of a {@code --cluster} list. */
    public NodeConfig withJoin(String url) {
        return with(b -> b.joinUrl = url);
    }

    /** Takes the place of the dead member at {@code url} ({@code serve --join ... --replace}); needs {@link #withJoin}. */
    public NodeConfig withReplace(String url) {
        return with(b -> b.replaceUrl = url);
    }

    public NodeConfig withCluster(List<String> urls) {
        return with(b -> b.clusterUrls = urls);
    }

    public NodeConfig withSecret(ClusterSecret clusterSecret) {
        return with(b -> b.secret = clusterSecret);
    }

    public NodeConfig withDrainDelay(Duration delay) {
        return with(b -> b.drainDelay = delay);
    }

    /** Serves https (TLS, h2 or HTTP/1.1 by ALPN) instead of http; peers must then be https too. */
    public NodeConfig withTls(ServerTls serverTls) {
        return with(b -> b.tls = serverTls);
    }

    /** With {@code false}, the node records no metrics and {@code /metrics} answers 404 ({@code serve --metrics off}). */
    public NodeConfig withMetrics(boolean on) {
        return with(b -> b.metrics = on);
    }

    public NodeConfig withReadSpareDelay(Duration delay) {
        return with(b -> b.readSpareDelay = delay);
    }

    /** With the given client connection timeouts ({@code serve --idle-timeout}, {@code --header-timeout}). */
    public NodeConfig withClientTimeouts(Duration idle, Duration header) {
        return with(b -> {
            b.idleTimeout = idle;
            b.headerTimeout = header;
        });
    }

    /**
     * With a token registry, every request but {@code /v0/status} and the internal plane needs a
     * token with the route's scope ({@code serve --auth-file}); null: no access control.
     */
    public NodeConfig withTokens(TokenRegistry registry) {
        return with(b -> b.tokens = registry);
    }

    /** Names besides its own under which the node's dashboard answers ({@link DashboardHosts}). */
    public NodeConfig withUiAllowedHosts(List<String> names) {
        return with(b -> b.uiAllowedHosts = List.copyOf(names));
    }

    /** With {@code voters} voting members of the metadata group, 3 or 5 ({@code serve --meta-voters}). */
    public NodeConfig withMetaVoters(int voters) {
        return with(b -> b.metaVoters = voters);
    }

    /** With {@code rf} nodes owning each key ({@code serve --replication-factor}); 0 for the default. */
    public NodeConfig withReplicationFactor(int rf) {
        return with(b -> b.replicationFactor = rf);
    }

    /** With hand-overs reading {@code bytesPerSecond} of this node's store ({@code serve --stream-rate}). */
    public NodeConfig withStreamRate(long bytesPerSecond) {
        return with(b -> b.streamBytesPerSecond = bytesPerSecond);
    }

    /** The scheme of this node's URL: https with TLS, http without. */
    public String scheme() {
        return tls == null ? "http" : "https";
    }

    public NodeConfig withMaxBodyBytes(long bytes) {
        return with(b -> b.maxBodyBytes = bytes);
    }

    /**
     * With {@code on} (the default), conditional writes are served as a compare-and-set; off
     * ({@code serve --no-conditional-writes}) they are refused with 501, see {@link PublicApi}.
     */
    public NodeConfig withConditionalWrites(boolean on) {
        return with(b -> b.conditionalWrites = on);
    }

    /** A copy of this configuration with {@code change} applied: what every {@code with...} method makes. */
    private NodeConfig with(java.util.function.Consumer<Builder> change) {
        Builder builder = new Builder(this);
        change.accept(builder);
        return builder.build();
    }

    /** The record's components, to change a few and make a new record; confined to one {@link #with} call. */
    private static final class Builder {
        private String host;
        private int port;
        private Path dataDir;
        private List<String> clusterUrls;
        private long maxBodyBytes;
        private Durability durability;
        private Duration replicaTimeout;
        private Duration shutdownGrace;
        private int inFlightMax;
        private int handlerThreads;
        private InterNodeTransport interNodeTransport;
        private HintSettings hints;
        private AntiEntropySettings antiEntropy;
        private Duration tombstoneGrace;
        private ClusterSecret secret;
        private Duration maxClockOffset;
        private ClockShift clockShift;
        private int rangeStreamsMax;
        private int connectionsMax;
        private Duration drainDelay;
        private ServerTls tls;
        private boolean metrics;
        private Duration readSpareDelay;
        private TokenRegistry tokens;
        private Duration idleTimeout;
        private Duration headerTimeout;
        private List<String> uiAllowedHosts;
        private int metaVoters;
        private int replicationFactor;
        private boolean conditionalWrites;
        private String joinUrl;
        private String replaceUrl;
        private long streamBytesPerSecond;

        Builder(NodeConfig from) {
            this.host = from.host;
            this.port = from.port;
            this.dataDir = from.dataDir;
            this.clusterUrls = from.clusterUrls;
            this.maxBodyBytes = from.maxBodyBytes;
            this.durability = from.durability;
            this.replicaTimeout = from.replicaTimeout;
            this.shutdownGrace = from.shutdownGrace;
            this.inFlightMax = from.inFlightMax;
            this.handlerThreads = from.handlerThreads;
            this.interNodeTransport = from.interNodeTransport;
            this.hints = from.hints;
            this.antiEntropy = from.antiEntropy;
            this.tombstoneGrace = from.tombstoneGrace;
            this.secret = from.secret;
            this.maxClockOffset = from.maxClockOffset;
            this.clockShift = from.clockShift;
            this.rangeStreamsMax = from.rangeStreamsMax;
            this.connectionsMax = from.connectionsMax;
            this.drainDelay = from.drainDelay;
            this.tls = from.tls;
            this.metrics = from.metrics;
            this.readSpareDelay = from.readSpareDelay;
            this.tokens = from.tokens;
            this.idleTimeout = from.idleTimeout;
            this.headerTimeout = from.headerTimeout;
            this.uiAllowedHosts = from.uiAllowedHosts;
            this.metaVoters = from.metaVoters;
            this.replicationFactor = from.replicationFactor;
            this.conditionalWrites = from.conditionalWrites;
            this.joinUrl = from.joinUrl;
            this.replaceUrl = from.replaceUrl;
            this.streamBytesPerSecond = from.streamBytesPerSecond;
        }

        NodeConfig build() {
            return new NodeConfig(host, port, dataDir, clusterUrls, maxBodyBytes, durability, replicaTimeout, shutdownGrace, inFlightMax, handlerThreads, interNodeTransport, hints, antiEntropy, tombstoneGrace, secret, maxClockOffset, clockShift, rangeStreamsMax, connectionsMax, drainDelay, tls, metrics, readSpareDelay, tokens, idleTimeout, headerTimeout, uiAllowedHosts, metaVoters, replicationFactor, conditionalWrites, joinUrl, replaceUrl, streamBytesPerSecond);
        }
    }
}

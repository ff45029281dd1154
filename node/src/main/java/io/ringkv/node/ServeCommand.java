package io.ringkv.node;

import io.ringkv.cluster.AntiEntropySettings;
import io.ringkv.cluster.ClusterNodes;
import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.ClusterSettings;
import io.ringkv.cluster.HintSettings;
import io.ringkv.cluster.InterNodeClient;
import io.ringkv.cluster.InterNodeProtocol;
import io.ringkv.cluster.InterNodeTransport;
import io.ringkv.http.server.ServerConfig;
import io.ringkv.http.server.ServerTls;
import io.ringkv.net.tls.PemFileException;
import io.ringkv.node.access.TokenFileException;
import io.ringkv.node.access.TokenRegistry;
import io.ringkv.node.dashboard.DashboardHosts;
import io.ringkv.store.Durability;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ringkv serve}: runs one node in the foreground until SIGTERM/SIGINT. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Run one ringkv node in the foreground; stops gracefully on SIGTERM or Ctrl-C.")
final class ServeCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);
    /** A warm-up longer than this is a typo, not a plan (the JIT is done long before). */
    static final Duration WARM_UP_MAX = Duration.ofMinutes(1);

    @Spec
    CommandSpec spec;

    @Option(names = "--port", required = true, description = "TCP port to listen on.")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to bind (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--data", required = true, description = "Data directory (created if missing).")
    Path data;

    @Option(names = "--cluster", split = ",", paramLabel = "URL",
            description = "Comma-separated URLs of every node in the cluster, this one included "
                    + "(e.g. http://127.0.0.1:8080,http://127.0.0.1:8081; https://... with --tls-cert). None or one URL: "
                    + "a single node.")
    List<String> cluster = List.of();

    @Option(names = "--join", paramLabel = "URL[,URL...]",
            description = "Join the running cluster of the member at URL instead of starting from a --cluster list: the "
                    + "node asks to join, receives the keys it will own from their owners, then serves them. Several "
                    + "members, comma-separated, are asked in turn until one takes the request. Needs the cluster "
                    + "secret; start it again with the same --join after a stop: a node that joined starts from its "
                    + "data directory and asks no member.")
    String join;

    @Option(names = "--replace", paramLabel = "DEAD_URL",
            description = "With --join: take the place of the member at DEAD_URL, which must be down. This node receives "
                    + "the dead member's keys from the surviving owners; when it is done, the dead member has left.")
    String replace;

    enum JoinPriority { LOW, NORMAL }

    @Option(names = "--join-priority", defaultValue = "LOW", paramLabel = "LOW|NORMAL",
            description = "With --join: the node's CPU share until its join is over. LOW (default, Linux): its "
                    + "session's scheduling group (autogroup) at nice 19, so that on a machine it shares with serving "
                    + "nodes it takes the CPU they leave, then as before; only where the node is its session's only "
                    + "process (a service manager's unit, setsid). NORMAL: as started.")
    JoinPriority joinPriority = JoinPriority.LOW;

    @Option(names = "--max-body", defaultValue = "16777216", paramLabel = "BYTES",
            description = "Largest request body accepted; larger ones get 413 (default: ${DEFAULT-VALUE}).")
    long maxBodyBytes;

    @Option(names = "--durability", defaultValue = "PROCESS_CRASH",
            description = "PROCESS_CRASH: a write is in the WAL (OS page cache) before it is acknowledged, "
                    + "so it survives kill -9. POWER_LOSS: the WAL is fsynced per write (slower). Default: ${DEFAULT-VALUE}.")
    Durability durability;

    @Option(names = "--replica-timeout", defaultValue = "PT1S", paramLabel = "DURATION",
            description = "How long a coordinator waits for a remote replica; it decides a request at most "
                    + "500 ms after that, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration replicaTimeout;

    @Option(names = "--shutdown-grace", defaultValue = "PT5S", paramLabel = "DURATION",
            description = "How long in-flight requests may finish on shutdown (default: ${DEFAULT-VALUE}).")
    Duration shutdownGrace;

    @Option(names = "--in-flight-max", paramLabel = "N",
            description = "Client requests handled at once; beyond this the node answers 503 at once (default: "
                    + ServerConfig.IN_FLIGHT_MAX_DEFAULT + "). Other nodes' calls may take a quarter more.")
    int inFlightMax = ServerConfig.IN_FLIGHT_MAX_DEFAULT;

    @Option(names = "--handler-threads", paramLabel = "N",
            description = "Threads running request handlers and storage calls (default: a multiple of the cores).")
    int handlerThreads = ServerConfig.handlerThreadsDefault();

    @Option(names = "--internode-client", paramLabel = "DIRECT|RING|JDK",
            description = "What carries node-to-node calls: DIRECT (HTTP/2 straight on ringkv's HTTP/2 engine and "
                    + "this node's event loops, one connection per peer and loop), or, for comparison, a "
                    + "java.net.http client: RING (ringkv's own) or JDK (the built-in one). Default: DIRECT, "
                    + "or RING with --internode-protocol h1 (DIRECT speaks h2 only).")
    InterNodeClient interNodeClient;

    @Option(names = "--internode-protocol", paramLabel = "h1|h2",
            description = "Protocol of node-to-node calls: h2 (cleartext HTTP/2 by prior knowledge, many calls "
                    + "multiplexed on one connection) or h1 (HTTP/1.1, one call per connection at a time). "
                    + "Default: h2 with DIRECT (which speaks h2 only) and RING, h1 with the JDK client (which cannot "
                    + "do h2 here).")
    InterNodeProtocol interNodeProtocol;

    @Option(names = "--internode-connections", paramLabel = "N",
            description = "Most connections to one peer (default: " + InterNodeTransport.H2_CONNECTIONS_PER_PEER_DEFAULT
                    + " over h2, which opens another only while every stream of the first is busy; "
                    + InterNodeTransport.H1_CONNECTIONS_PER_PEER_DEFAULT + " over h1). DIRECT keeps one per peer "
                    + "and event loop and ignores this.")
    Integer interNodeConnections;

    @Option(names = "--internode-batches", paramLabel = "N",
            description = "Batches of replica reads, and of replica writes, to one peer unanswered at once; those made "
                    + "meanwhile wait for an answer and leave together in one request. 0 sends each read and write as "
                    + "a request of its own "
                    + "(default: " + InterNodeTransport.BATCHES_PER_PEER_DEFAULT + ").")
    int interNodeBatches = InterNodeTransport.BATCHES_PER_PEER_DEFAULT;

    @Option(names = "--hint-max-per-node", paramLabel = "N",
            description = "Hinted handoff: writes kept for one unreachable replica; beyond that they are left to "
                    + "anti-entropy, 0 turns hints off (default: " + HintSettings.DEFAULT_MAX_PER_TARGET + ").")
    long hintMaxPerNode = HintSettings.DEFAULT_MAX_PER_TARGET;

    @Option(names = "--hint-max-bytes-per-node", paramLabel = "BYTES",
            description = "Hinted handoff: key and value bytes kept for one unreachable replica; a write that would "
                    + "pass it is left to anti-entropy, as beyond --hint-max-per-node (default: "
                    + HintSettings.DEFAULT_MAX_BYTES_PER_TARGET + ").")
    long hintMaxBytesPerNode = HintSettings.DEFAULT_MAX_BYTES_PER_TARGET;

    @Option(names = "--hint-max-age", paramLabel = "DURATION",
            description = "Hinted handoff: hints older than this are dropped, not replayed, ISO-8601 (default: "
                    + "PT3H).")
    Duration hintMaxAge = HintSettings.DEFAULT_MAX_AGE;

    @Option(names = "--hint-replay-rate", paramLabel = "N",
            description = "Hinted handoff: records replayed per second to returning replicas, all together (default: "
                    + HintSettings.DEFAULT_REPLAY_RATE + ").")
    int hintReplayRate = HintSettings.DEFAULT_REPLAY_RATE;

    @Option(names = "--anti-entropy-interval", paramLabel = "DURATION",
            description = "Time between anti-entropy rounds, in which this node compares its data with every peer's "
                    + "and sends what they lack, ISO-8601 (default: PT10M).")
    Duration antiEntropyInterval = AntiEntropySettings.DEFAULT_INTERVAL;

    @Option(names = "--anti-entropy-scan-rate", paramLabel = "N",
            description = "Records per second this node reads for anti-entropy, its own rounds and the scans it runs "
                    + "for peers together: lower costs foreground requests less and makes a round over a large store "
                    + "longer (default: " + AntiEntropySettings.DEFAULT_SCAN_RATE + ").")
    int antiEntropyScanRate = AntiEntropySettings.DEFAULT_SCAN_RATE;

    @Option(names = "--stream-rate", paramLabel = "MB_PER_S",
            description = "Megabytes (10^6 bytes) of keys and values per second this node reads from its store when it "
                    + "hands records over (a node joining, leaving or being replaced; `ringkv cleanup`): what moves is "
                    + "sent on as it is read. Lower costs foreground requests less and makes a membership change "
                    + "longer (default: " + io.ringkv.cluster.ClusterSettings.DEFAULT_STREAM_BYTES_PER_SECOND / 1_000_000
                    + ").")
    int streamRateMegabytes = (int) (io.ringkv.cluster.ClusterSettings.DEFAULT_STREAM_BYTES_PER_SECOND / 1_000_000);

    @Option(names = "--tombstone-grace", paramLabel = "DURATION",
            description = "Deleted keys' tombstones older than this are collected; must exceed --anti-entropy-interval "
                    + "and --hint-max-age, and a node away longer must be wiped before it rejoins, ISO-8601 (default: P10D).")
    Duration tombstoneGrace = ClusterSettings.DEFAULT_TOMBSTONE_GRACE;

    @Option(names = "--cluster-secret-file", paramLabel = "FILE",
            description = "File holding the cluster secret that authenticates node-to-node requests (the same on every "
                    + "node, at least 16 bytes; make one with: " + ClusterSecret.HOW_TO_MAKE_ONE + "). Without it the "
                    + "secret is read from $" + ClusterSecret.ENVIRONMENT_VARIABLE + ". Required with more than one node.")
    Path clusterSecretFile;

    @Option(names = "--max-clock-offset", paramLabel = "DURATION",
            description = "Timestamps from peers further ahead of this node's clock are refused, and a node behind most "
                    + "of its peers by more refuses writes, ISO-8601 (default: PT0.5S).")
    Duration maxClockOffset = ClusterSettings.DEFAULT_MAX_CLOCK_OFFSET;

    @Option(names = "--read-spare-delay", paramLabel = "DURATION",
            description = "A read asks as many replicas as it needs (ack; this node's own first) and the others only "
                    + "when one of those fails or this long passed without an answer. PT0S asks every replica at once: "
                    + "less wait behind a slow replica, more CPU per read, ISO-8601 (default: PT0.02S).")
    Duration readSpareDelay = io.ringkv.cluster.CoordinatorSettings.DEFAULT_READ_SPARE_DELAY;

    @Option(names = "--connections-max", paramLabel = "N",
            description = "Open client connections; further ones are closed at once (default: "
                    + ServerConfig.CONNECTIONS_MAX_DEFAULT + ").")
    int connectionsMax = ServerConfig.CONNECTIONS_MAX_DEFAULT;

    @Option(names = "--idle-timeout", paramLabel = "DURATION",
            description = "Close a client connection that has nothing in progress, or whose request body makes no "
                    + "progress, for this long, ISO-8601 (default: PT60S).")
    Duration idleTimeout = ServerConfig.IDLE_TIMEOUT_DEFAULT;

    @Option(names = "--header-timeout", paramLabel = "DURATION",
            description = "A request's head must arrive within this from its first byte, or from connect for a "
                    + "connection's first request (HTTP/2: the preface, and a header block's CONTINUATION frames), "
                    + "ISO-8601 (default: PT10S).")
    Duration headerTimeout = ServerConfig.HEADER_READ_TIMEOUT_DEFAULT;

    @Option(names = "--meta-voters", paramLabel = "3|5",
            description = "Members that vote in the cluster metadata's Raft group (the first ones by node id; all of them "
                    + "in a smaller cluster); the others follow its log. Losing fewer than half of them stops nothing "
                    + "(default: " + io.ringkv.cluster.meta.MetadataSettings.DEFAULT_VOTERS + ").")
    int metaVoters = io.ringkv.cluster.meta.MetadataSettings.DEFAULT_VOTERS;

    @Option(names = "--replication-factor", paramLabel = "N",
            description = "Copies of each key: a key lives on its first N nodes in rendezvous order, and the default "
                    + "replicas is a majority of N (2/3 for 3). At most the number of --cluster nodes. It is the value "
                    + "the cluster metadata starts with; once the metadata holds one, every node follows that ('ringkv "
                    + "meta set-replication-factor' changes it) (default: 3, or every node of a smaller cluster).")
    Integer replicationFactor;

    @Option(names = "--conditional-writes", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Serve PUT/DELETE with If-Match, If-None-Match or If-Unmodified-Since as a compare-and-set "
                    + "among the key's replicas (on by default); --no-conditional-writes refuses such a write with 501 "
                    + "and writes nothing. Give every node of the cluster the same setting.")
    boolean conditionalWrites = true;

    @Option(names = "--range-streams-max", paramLabel = "N",
            description = "Cluster ranges (/v0/entities across nodes) open at once; beyond it 503 (default: "
                    + NodeConfig.RANGE_STREAMS_MAX_DEFAULT + ").")
    int rangeStreamsMax = NodeConfig.RANGE_STREAMS_MAX_DEFAULT;

    @Option(names = "--drain-delay", paramLabel = "DURATION",
            description = "On stop, how long the node keeps serving while /v0/status answers 503, so load balancers "
                    + "take it out before it refuses connections, ISO-8601 (default: PT0S).")
    Duration drainDelay = Duration.ZERO;

    @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "Serve https: this node's certificate chain, PEM, its own certificate first. Clients get h2 or "
                    + "HTTP/1.1 by ALPN; the node's URL becomes https://host:port, every --cluster URL must be https, and "
                    + "node-to-node calls go over TLS too. Needs --tls-key.")
    Path tlsCertificate;

    @Option(names = "--tls-key", paramLabel = "FILE",
            description = "The private key of --tls-cert, PEM, unencrypted: PKCS#8 (BEGIN PRIVATE KEY), or RSA/EC in "
                    + "the traditional form (BEGIN RSA PRIVATE KEY, BEGIN EC PRIVATE KEY).")
    Path tlsKey;

    @Option(names = "--tls-trust", paramLabel = "FILE",
            description = "With --tls-cert: PEM certificates (a CA, or the nodes' own) that peers' certificates must chain "
                    + "to; each peer's certificate must also name the host of its URL. Default: the certificates of "
                    + "--tls-cert, so one certificate shared by all nodes, or a chain ending with the cluster's CA, works.")
    Path tlsTrust;

    /** {@code --tls-client-auth none|want|need}. */
    enum ClientAuthFlag { NONE, WANT, NEED }

    @Option(names = "--tls-client-auth", defaultValue = "NONE", paramLabel = "none|want|need",
            description = "With --tls-cert: whether clients are asked for a certificate. want: a client may present "
                    + "one (it must verify); need: a client without one that verifies fails the TLS handshake. A "
                    + "verified certificate whose subject CN or a subject alternative name is named by a cert: line of "
                    + "--auth-file gets that line's scopes. Peers are verified against --tls-trust, and this node "
                    + "presents its own certificate when a peer asks (default: none).")
    ClientAuthFlag tlsClientAuth;

    @Option(names = "--tls-client-trust", paramLabel = "FILE",
            description = "With --tls-client-auth want or need: PEM certificates (CAs) that application clients' "
                    + "certificates must chain to, besides those of --tls-trust (which peers' certificates chain to). "
                    + "Default: those of --tls-trust alone.")
    Path tlsClientTrust;

    @Option(names = "--ui-allowed-hosts", split = ",", paramLabel = "NAME",
            description = "Further host names under which the dashboard (/ui/) answers, for reaching it through a DNS "
                    + "name or a proxy, e.g. ringkv.example.org. Besides these it answers only to the host of the node's "
                    + "URL, to localhost when the node listens on a loopback or wildcard address, and to IP addresses; "
                    + "any other Host gets 421, so a web page cannot read the cluster by rebinding its DNS name to a node.")
    List<String> uiAllowedHosts = List.of();

    /** {@code --metrics on|off}. */
    enum Switch { ON, OFF }

    @Option(names = "--metrics", defaultValue = "ON", paramLabel = "on|off",
            description = "on: record metrics and serve them at /metrics (Prometheus text format). off: record none, "
                    + "collect none, and answer /metrics with 404; the dashboard and ringkv status then show no rates "
                    + "for this node. For measuring what metrics cost (default: on).")
    Switch metrics;

    @Option(names = "--log-format", defaultValue = "TEXT",
            description = "TEXT: one readable line per event. JSON: one JSON object per line, for log shippers "
                    + "(default: ${DEFAULT-VALUE}).")
    LogSetup.Format logFormat;

    @Option(names = "--warm-up", defaultValue = "PT30S", paramLabel = "DURATION",
            description = "When another node of the cluster already serves (this node restarted into a running cluster), "
                    + "first run a scratch 3-node cluster in this JVM under full load until it answered 20,000 requests, then "
                    + "under 500 requests a second until the JIT has compiled what they run, then without load until the JIT is "
                    + "quiet, for at most this long, so the first requests find compiled code; /v0/status says starting "
                    + "meanwhile. A node alone or of a new cluster (no peer has served for 10 s) serves at once. PT0S never "
                    + "warms up (default: ${DEFAULT-VALUE}).")
    Duration warmUp;

    @Option(names = "--auth-file", paramLabel = "FILE",
            description = "Token file: every request but GET /v0/status and node-to-node ones then needs "
                    + "'Authorization: Bearer TOKEN' with a token of the file that has the route's scope (read, write, "
                    + "admin for /metrics and /ui/). Make tokens with 'ringkv token'; kill -HUP reloads the file. "
                    + "Default: no access control.")
    Path authFile;

    @Option(names = "--clock-offset-for-tests", hidden = true, paramLabel = "DURATION",
            description = "Shifts this node's wall clock (fault tests of clock skew only).")
    Duration clockOffsetForTests = Duration.ZERO;

    @Option(names = "--clock-offset-file-for-tests", hidden = true, paramLabel = "FILE",
            description = "Steps this node's wall clock, while it runs, to the ISO-8601 duration the file holds "
                    + "(re-read every 10 ms; fault tests of clock jumps only).")
    Path clockOffsetFileForTests;

    @Override
    public Integer call() {
        NodeTls tls = validate();
        TokenRegistry tokens = tokens();
        LogSetup.apply(logFormat);
        InterNodeTransport transport = tls == null ? interNodeTransport() : interNodeTransport().withTrust(tls.peerTrust());
        NodeConfig config = new NodeConfig(host, port, data, cluster, maxBodyBytes, durability, replicaTimeout,
                shutdownGrace, inFlightMax, handlerThreads, transport, hintSettings(), antiEntropySettings(), tombstoneGrace, clusterSecret(), maxClockOffset, new ClockShift(clockOffsetForTests, clockOffsetFileForTests),
                rangeStreamsMax, connectionsMax, drainDelay, tls == null ? null : tls.server(), metrics == Switch.ON,
                readSpareDelay, tokens, idleTimeout, headerTimeout, uiAllowedHosts, metaVoters,
                replicationFactor == null ? 0 : replicationFactor, conditionalWrites, join, replace,
                streamRateMegabytes * 1_000_000L);
        if (tokens != null && TokenReloadSignal.install(tokens)) {
            log.info("kill -HUP {} reloads the token file {}", ProcessHandle.current().pid(), tokens.file());
        }
        Optional<JoinCpuShare> joinShare = join != null && joinPriority == JoinPriority.LOW
                ? JoinCpuShare.lower(SessionAutogroup.ofThisProcess()) : Optional.empty();
        Node node;
        try {
            // Once decommissioned, the process stops with status 0; the shutdown hook closes the node.
            node = Node.start(config, warmUp, () -> {
                Thread exit = new Thread(() -> System.exit(0), "ringkv-left");
                exit.start();
            });
        } catch (NodeStartException e) {
            log.error("cannot start: {}", e.getMessage());
            return Main.EXIT_CANNOT_START;
        }
        joinShare.ifPresent(share -> share.restoreWhenOver(node.join()));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            node.close();
            stopped.countDown();
        }, "ringkv-shutdown"));
        awaitUninterruptibly(stopped);
        return 0;
    }

    /** The tokens of --auth-file; null without it. A file that does not read is a usage error naming the line. */
    private TokenRegistry tokens() {
        if (authFile == null) {
            return null;
        }
        try {
            return TokenRegistry.load(authFile);
        } catch (TokenFileException e) {
            throw new ParameterException(spec.commandLine(), "--auth-file " + e.getMessage());
        }
    }

    /** The secret from --cluster-secret-file or the environment; null for a one-node cluster without one. */
    private ClusterSecret clusterSecret() {
        String fromEnvironment = System.getenv(ClusterSecret.ENVIRONMENT_VARIABLE);
        try {
            if (clusterSecretFile != null) {
                return ClusterSecret.fromFile(clusterSecretFile);
            }
            if (fromEnvironment != null && !fromEnvironment.isBlank()) {
                return ClusterSecret.of(fromEnvironment);
            }
        } catch (java.io.IOException e) {
            throw new ParameterException(spec.commandLine(), "--cluster-secret-file " + clusterSecretFile + ": cannot read it ("
                    + e.getMessage() + ")");
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), (clusterSecretFile != null ? "--cluster-secret-file "
                    + clusterSecretFile : "$" + ClusterSecret.ENVIRONMENT_VARIABLE) + ": " + e.getMessage());
        }
        if (cluster.size() > 1) {
            throw new ParameterException(spec.commandLine(), "a cluster of " + cluster.size() + " nodes needs a cluster "
                    + "secret, the same on every node, to authenticate node-to-node requests: make one with '"
                    + ClusterSecret.HOW_TO_MAKE_ONE + "' and pass --cluster-secret-file cluster.secret (or set $"
                    + ClusterSecret.ENVIRONMENT_VARIABLE + ")");
        }
        return null;
    }

    /** The node's TLS from --tls-cert, --tls-key and --tls-trust, read from the files; null without them. */
    private NodeTls tls() {
        if ((tlsCertificate == null) != (tlsKey == null)) {
            throw new ParameterException(spec.commandLine(), "--tls-cert and --tls-key go together: give both to serve "
                    + "https, or neither to serve http");
        }
        if (tlsCertificate == null) {
            if (tlsTrust != null) {
                throw new ParameterException(spec.commandLine(), "--tls-trust is for peers over https; it needs --tls-cert "
                        + "and --tls-key");
            }
            if (tlsClientAuth != ClientAuthFlag.NONE || tlsClientTrust != null) {
                throw new ParameterException(spec.commandLine(), "--tls-client-auth and --tls-client-trust are about "
                        + "TLS client certificates; they need --tls-cert and --tls-key");
            }
            return null;
        }
        if (tlsClientTrust != null && tlsClientAuth == ClientAuthFlag.NONE) {
            throw new ParameterException(spec.commandLine(), "--tls-client-trust is for verifying client certificates; "
                    + "it needs --tls-client-auth want or need");
        }
        try {
            return NodeTls.load(tlsCertificate, tlsKey, tlsTrust, ServerTls.ClientAuth.valueOf(tlsClientAuth.name()),
                    tlsClientTrust);
        } catch (PemFileException e) {
            String option = e.file().equals(tlsKey) ? "--tls-key" : e.file().equals(tlsTrust) ? "--tls-trust"
                    : e.file().equals(tlsClientTrust) ? "--tls-client-trust" : "--tls-cert";
            throw new ParameterException(spec.commandLine(), option + " " + e.getMessage());
        }
    }

    private InterNodeTransport interNodeTransport() {
        try {
            InterNodeClient client = interNodeClient != null ? interNodeClient
                    : interNodeProtocol == InterNodeProtocol.H1 ? InterNodeClient.RING : InterNodeClient.DIRECT;
            InterNodeProtocol protocol = interNodeProtocol != null ? interNodeProtocol
                    : client == InterNodeClient.JDK ? InterNodeProtocol.H1 : InterNodeProtocol.H2;
            InterNodeTransport defaults = InterNodeTransport.of(client, protocol);
            return (interNodeConnections == null ? defaults
                    : new InterNodeTransport(client, protocol, interNodeConnections))
                    .withBatchesPerPeer(interNodeBatches);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--internode-client, --internode-protocol, "
                    + "--internode-connections, --internode-batches: " + e.getMessage());
        }
    }

    private AntiEntropySettings antiEntropySettings() {
        try {
            return AntiEntropySettings.defaults().withInterval(antiEntropyInterval).withScanRate(antiEntropyScanRate);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--anti-entropy-interval, --anti-entropy-scan-rate: " + e.getMessage());
        }
    }

    private HintSettings hintSettings() {
        try {
            return HintSettings.defaults().withMaxPerTarget(hintMaxPerNode).withMaxBytesPerTarget(hintMaxBytesPerNode)
                    .withMaxAge(hintMaxAge).withReplayRate(hintReplayRate);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--hint-max-per-node, --hint-max-bytes-per-node, --hint-max-age, "
                    + "--hint-replay-rate: " + e.getMessage());
        }
    }

    /** Checks every flag; returns the node's TLS (null without it), whose files it had to read for the check. */
    private NodeTls validate() {
        if (port < 0 || port > 65535) {
            throw new ParameterException(spec.commandLine(), "--port must be between 0 and 65535, got " + port);
        }
        if (inFlightMax < 1 || handlerThreads < 1 || rangeStreamsMax < 1 || connectionsMax < 1) {
            throw new ParameterException(spec.commandLine(),
                    "--in-flight-max, --handler-threads, --range-streams-max and --connections-max must be at least 1");
        }
        if (warmUp.isNegative() || warmUp.compareTo(WARM_UP_MAX) > 0) {
            throw new ParameterException(spec.commandLine(), "--warm-up must be between PT0S and " + WARM_UP_MAX + ", got " + warmUp);
        }
        if (metaVoters != 3 && metaVoters != 5) {
            throw new ParameterException(spec.commandLine(), "--meta-voters must be 3 or 5, got " + metaVoters);
        }
        if (join != null && !cluster.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--join and --cluster exclude each other: a joining node takes "
                    + "its member list from the cluster");
        }
        if (replace != null && join == null) {
            throw new ParameterException(spec.commandLine(), "--replace needs --join URL: the member to ask");
        }
        if (join != null && replicationFactor != null) {
            throw new ParameterException(spec.commandLine(), "--replication-factor is the cluster's (ringkv meta "
                    + "set-replication-factor); a joining node takes it from the cluster");
        }
        int members = Math.max(1, cluster.size());
        if (replicationFactor != null && (replicationFactor < 1 || replicationFactor > members)) {
            throw new ParameterException(spec.commandLine(), "--replication-factor must be between 1 and the " + members
                    + " node(s) of --cluster, got " + replicationFactor + (replicationFactor > members
                    ? ": a key cannot have more copies than there are nodes" : ""));
        }
        if (drainDelay.isNegative()) {
            throw new ParameterException(spec.commandLine(), "--drain-delay must not be negative, got " + drainDelay);
        }
        if (!idleTimeout.isPositive() || !headerTimeout.isPositive()) {
            throw new ParameterException(spec.commandLine(), "--idle-timeout and --header-timeout must be positive, got "
                    + idleTimeout + " and " + headerTimeout);
        }
        if (maxBodyBytes < 0) {
            throw new ParameterException(spec.commandLine(), "--max-body must not be negative");
        }
        clusterSecret();
        interNodeTransport();
        try {
            DashboardHosts.of(host, uiAllowedHosts);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--ui-allowed-hosts: " + e.getMessage());
        }
        if (streamRateMegabytes < 1) {
            throw new ParameterException(spec.commandLine(), "--stream-rate must be at least 1 (MB per second), got "
                    + streamRateMegabytes);
        }
        if (readSpareDelay.isNegative()) {
            throw new ParameterException(spec.commandLine(), "--read-spare-delay must not be negative, got " + readSpareDelay);
        }
        if (maxClockOffset.isNegative() || maxClockOffset.isZero()) {
            throw new ParameterException(spec.commandLine(), "--max-clock-offset must be positive, got " + maxClockOffset);
        }
        HintSettings hints = hintSettings();
        AntiEntropySettings antiEntropy = antiEntropySettings();
        if (tombstoneGrace.compareTo(antiEntropy.interval()) <= 0 || tombstoneGrace.compareTo(hints.maxAge()) <= 0) {
            throw new ParameterException(spec.commandLine(), "--tombstone-grace " + tombstoneGrace
                    + " must exceed --anti-entropy-interval (" + antiEntropy.interval() + ") and --hint-max-age ("
                    + hints.maxAge() + "): a replica could otherwise bring a deleted value back");
        }
        NodeTls tls = tls();
        try {
            if (cluster.size() > 1) {
                ClusterNodes.of(cluster, (tls == null ? "http" : "https") + "://" + host + ":" + port);
            }
            if (replace != null && io.ringkv.cluster.ClusterNode.parse(replace).placementKey()
                    .equals(io.ringkv.cluster.ClusterNode.parse("http://" + host + ":" + port).placementKey())) {
                // Its probe of the dead member would reach this node itself, and the refusal would say "it answers".
                throw new ParameterException(spec.commandLine(), "--replace " + replace + " is this node's own address: a "
                        + "node cannot take its own place. A dead member whose data is intact comes back when started "
                        + "again as it was (its --cluster list, or --join); one whose data is lost is replaced by a node at "
                        + "another address");
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        return tls;
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

package io.ringkv.cluster;

import io.ringkv.http.LogText;
import io.ringkv.http.server.HeadAdmission;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.RangeCursor;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import io.ringkv.store.WouldBlockException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The server side of the node-to-node protocol: mount it for every path under
 * {@link InternalProtocol#PREFIX}. Endpoints (docs/cluster.md has the full description):
 * <pre>
 *   GET /internal/v0/range?start=B64[&amp;end=B64]  200, streamed RecordFrames, tombstones included
 *   GET /internal/v0/time             200, this node's wall clock (epoch millis, decimal)
 *   PUT /internal/v0/writes           body = RecordFrames (any order, end marker); each applied by timestamp -> 200,
 *                                     one answer per write ({@link WriteBatchCodec}); every write between nodes
 *   POST /internal/v0/reads           body = keys ({@link ReadBatchCodec}) -> 200, one answer per key; every read between nodes
 *   POST /internal/v0/versions        body = keys, as for reads -> 200, each key's version (no value); a cleanup's check
 *   POST /internal/v0/paxos/prepare   body = a compare-and-set's prepare ({@link PaxosMessages}) -> 200, the promise
 *   POST /internal/v0/paxos/accept    body = a compare-and-set's accept -> 200, the answer
 *   POST /internal/v0/raft/OP         a Raft call of the metadata group ({@link #mountMetadata}) -> 200, the reply
 *   POST /internal/v0/meta/replication-factor  body = N; a metadata change through this node -> 200 | 409 | 503
 * </pre>
 * These endpoints take timestamps from the request, so every request must prove the cluster
 * secret ({@link InternalAuth}: 403 otherwise), carry this node's topology fingerprint (409
 * otherwise) and name this node as its receiver (403 otherwise). The public handlers never read
 * these headers, so the public API cannot be used to forge a timestamp. Every answer to a request
 * that proved the secret carries its own proof ({@link AnswerAuth}), which names that request;
 * refusals (403) carry none, as their requester may not know the secret.
 *
 * <p>A data request carrying a metadata epoch ({@link InternalProtocol#EPOCH_HEADER}) above this
 * node's makes it catch up; one whose answer depends on this node's metadata (anti-entropy's
 * digest and versions) waits for that, bounded, and is refused (503) rather than answered under
 * older metadata; a malformed or impossible epoch is 400 ({@link EpochGate}). Every answer to a
 * verified request carries this node's epoch, so that a sender behind catches up.
 *
 * <p>Threading: stateless apart from the shared engine and clock. The batches of replica reads and
 * writes run on the event loop that read them ({@link #onLoop}) and never block it: storage that
 * cannot answer from memory sends them to the executor given at construction. Every other request
 * runs on the server's handler executor and blocks there briefly on storage, as
 * {@link HttpHandler} allows. A request that waits for a catch-up holds no thread: it is answered
 * on the executor given at construction.
 */
public final class InternalApiHandler implements HttpHandler, HeadAdmission {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(InternalApiHandler.class);
    /** {@link #verdict}'s note for {@link #handle}: this request's head passed {@link InternalAuth#checkHead}. */
    private static final Object PROOF_CHECKED_AT_HEAD = new Object();

    private final StorageEngine engine;
    private final HybridLogicalClock clock;
    private final InternalAuth auth;
    private final TopologyWatch topologyWatch;
    private final AntiEntropy antiEntropy;
    private final ClockSkew clockSkew;
    private final PaxosAcceptor acceptor;
    private final EpochGate epochGate;
    private final java.util.concurrent.Executor executor;
    private final java.util.concurrent.Executor storageExecutor;
    private final RateLimitedLog aheadLog = new RateLimitedLog(60_000);
    private final RateLimitedLog refusals = new RateLimitedLog(60_000);
    private volatile HttpHandler raft;
    private volatile HttpHandler metaAdmin;
    /** Serves {@link InternalProtocol#MEMBERSHIP_PREFIX}; null until {@link #mountMembership}. */
    private volatile HttpHandler membership;
    /** Serves {@link InternalProtocol#CLEANUP_PATH}; null until {@link #mountCleanup}. */
    private volatile Cleanup cleanup;

    /**
     * @param clock         observes the timestamps of replicated writes, so this node never stamps
     *                      a later write older than one it already stored
     * @param auth          every request must carry its proof ({@link InternalAuth}); 403 otherwise
     * @param topologyWatch told of authenticated peers with another node list (answered 409)
     * @param antiEntropy   serves {@link InternalProtocol#REPAIR_PATH}; null where there is none
     * @param clockSkew     hears peers' sending times, and bounds the timestamps this node takes in
     */
    public InternalApiHandler(StorageEngine engine, HybridLogicalClock clock, InternalAuth auth,
                              TopologyWatch topologyWatch, AntiEntropy antiEntropy, ClockSkew clockSkew) {
        this(engine, clock, auth, topologyWatch, antiEntropy, clockSkew, new PaxosAcceptor(engine),
                new EpochGate(new MetadataCatchUp(new KnownMetadata()), EpochGate.CATCH_UP_WAIT_MAX), Runnable::run,
                Runnable::run);
    }

    /**
     * @param acceptor  this node's compare-and-set acceptor, shared with its own proposals ({@link CompareAndSet})
     * @param epochGate decides on the sender's metadata epoch before a data request is answered
     * @param executor  where a request that waited for this node to catch up is answered (the
     *                  node's coordination executor: the wait ends on a Ratis or timer thread)
     * @param storageExecutor where a batch run on the event loop goes when storage cannot answer it
     *                  without waiting (the server's bounded handler executor)
     */
    InternalApiHandler(StorageEngine engine, HybridLogicalClock clock, InternalAuth auth, TopologyWatch topologyWatch,
                       AntiEntropy antiEntropy, ClockSkew clockSkew, PaxosAcceptor acceptor, EpochGate epochGate,
                       java.util.concurrent.Executor executor, java.util.concurrent.Executor storageExecutor) {
        this.engine = engine;
        this.clock = clock;
        this.auth = java.util.Objects.requireNonNull(auth, "auth");
        this.topologyWatch = topologyWatch;
        this.antiEntropy = antiEntropy;
        this.clockSkew = java.util.Objects.requireNonNull(clockSkew, "clockSkew");
        this.acceptor = acceptor;
        this.epochGate = java.util.Objects.requireNonNull(epochGate, "epochGate");
        this.executor = java.util.Objects.requireNonNull(executor, "executor");
        this.storageExecutor = java.util.Objects.requireNonNull(storageExecutor, "storageExecutor");
    }

    /**
     * Sends Raft calls ({@code /internal/v0/raft/...}) that passed the checks above to
     * {@code endpoint}, the node's part of the metadata group, and the metadata's admin requests
     * ({@code /internal/v0/meta/...}) to {@code admin}; until then both are answered 503. Their
     * answers carry proofs like every other internal answer.
     */
    /** Serves {@link InternalProtocol#CLEANUP_PATH} with {@code cleanup}; until then it is answered 404. */
    void mountCleanup(Cleanup cleanup) {
        this.cleanup = cleanup;
    }

    /** Serves {@link InternalProtocol#MEMBERSHIP_PREFIX} (this node's own join or decommission); until then 503. */
    public void mountMembership(HttpHandler endpoint) {
        this.membership = endpoint;
    }

    public void mountMetadata(HttpHandler endpoint, HttpHandler admin) {
        this.metaAdmin = admin;
        this.raft = endpoint;
    }

    @Override
    public CompletionStage<Response> handle(Request request) throws Exception {
        InternalAuth.Check check = request.admissionNote() == PROOF_CHECKED_AT_HEAD ? auth.checkBody(request) : auth.check(request);
        return switch (check) {
            case FORBIDDEN -> CompletableFuture.completedFuture(forbidden(request));
            case MISDIRECTED -> CompletableFuture.completedFuture(misdirected(request));
            case TOPOLOGY_MISMATCH -> CompletableFuture.completedFuture(
                    auth.answers().sign(InternalAuth.proofOf(request), topologyMismatch(request)));
            case OK -> {
                clockSkew.heard(request.headers().first(InternalAuth.NODE_HEADER).orElse("unknown"),
                        Long.parseLong(request.headers().first(InternalAuth.TIME_HEADER).orElseThrow()));
                String proof = InternalAuth.proofOf(request);
                yield isMetadata(request.path())
                        ? metadata(request).thenApply(answer -> auth.answers().sign(proof, answer))
                        : data(request).thenApply(answer -> auth.answers().sign(proof,
                                answer.withHeader(InternalProtocol.EPOCH_HEADER, Long.toString(epochGate.epoch()))));
            }
        };
    }

    /**
     * A data request's answer, once the sender's metadata epoch allows it ({@link EpochGate}): at
     * once on this thread, or, for an anti-entropy comparison from a node ahead, after a catch-up
     * on {@link #executor}; or the gate's refusal. The clock and repair endpoints depend on no
     * placement and are never held: the clock check runs while a node starts.
     */
    private CompletionStage<Response> data(Request request) throws StoreException {
        if (request.path().equals(InternalProtocol.TIME_PATH) || request.path().equals(InternalProtocol.REPAIR_PATH)) {
            return CompletableFuture.completedFuture(respond(request, false));
        }
        // Anti-entropy's comparisons follow this node's view of owners; every other data request is
        // answered the same under any metadata (EpochGate says why).
        // A cleanup, too: a run started for a joining node must hand records over by the view that
        // names it.
        // A batch of keys' versions (POST) is the same under any metadata: only the bucket stream filters by owners.
        // A Paxos message, so that its round's epoch is compared with this node's once it knows it (PaxosAcceptor).
        boolean dependsOnMetadata = request.path().equals(InternalProtocol.DIGEST_PATH)
                || request.path().equals(InternalProtocol.VERSIONS_PATH) && request.method().equals("GET")
                || request.path().equals(InternalProtocol.CLEANUP_PATH)
                || request.path().equals(InternalProtocol.PAXOS_PREPARE_PATH)
                || request.path().equals(InternalProtocol.PAXOS_ACCEPT_PATH);
        CompletableFuture<Optional<Response>> admitted = epochGate.admit(request.headers().first(InternalProtocol.EPOCH_HEADER),
                dependsOnMetadata);
        if (admitted.isDone()) {
            Optional<Response> refusal = admitted.join();
            return refusal.isPresent() ? CompletableFuture.completedFuture(refusal.get()) : respondWithoutWaiting(request);
        }
        return admitted.thenApplyAsync(refusal -> {
            if (refusal.isPresent()) {
                return refusal.get();
            }
            try {
                return respond(request, false);
            } catch (StoreException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }, executor);
    }

    /**
     * The part of the checks a request's head decides, before its body is read: a missing,
     * malformed, wrong or stale proof (403), a request for another node (403), a body longer than
     * the route takes ({@link InternalBodyLimits}: 413). The proof covers the body through its
     * digest field, which {@link #handle} compares with the body once it is in. Loop thread; one
     * MAC, no I/O (refusals are logged at most once a minute per peer).
     */
    @Override
    public Optional<Response> admit(HeadAdmission.Head head) {
        return Optional.ofNullable(verdict(head).answer());
    }

    /**
     * As {@link #admit}; a request let through carries {@link #PROOF_CHECKED_AT_HEAD} to
     * {@link #handle}, which then checks only what the head could not (the body's digest, the
     * topology) instead of computing the MAC a second time.
     */
    @Override
    public HeadAdmission.Verdict verdict(HeadAdmission.Head head) {
        return switch (auth.checkHead(head.method(), InternalAuth.target(head.path(), head.query()), head.headers())) {
            case FORBIDDEN -> HeadAdmission.Verdict.answer(forbidden(head.withoutBody()));
            case MISDIRECTED -> HeadAdmission.Verdict.answer(misdirected(head.withoutBody()));
            case OK, TOPOLOGY_MISMATCH -> {
                long limit = InternalBodyLimits.forPath(head.path());
                yield head.contentLength() > limit
                        ? HeadAdmission.Verdict.answer(Response.text(413, head.method() + " " + head.path()
                                + " takes a body of at most " + limit + " bytes; this one announces " + head.contentLength()))
                        : HeadAdmission.Verdict.pass(PROOF_CHECKED_AT_HEAD);
            }
        };
    }

    /**
     * The route's limit ({@link InternalBodyLimits}) for a body read after {@link #admit}: what
     * bounds a body whose length the head does not announce (chunked, or HTTP/2 without
     * content-length), which only a sender that proved the secret at the head gets to send.
     */
    @Override
    public long bodyBytesMax(HeadAdmission.Head head) {
        return InternalBodyLimits.forPath(head.path());
    }

    /**
     * Every peer call {@link #admit} let through takes the server's in-flight reserve if it must: it
     * is work a coordinator admitted already (a replica write or read, a hand-over batch, a Raft
     * call), which a {@code 503} here would turn into a failed or late client request there.
     */
    @Override
    public boolean priority(HeadAdmission.Head head) {
        return true;
    }

    private static boolean isMetadata(String path) {
        return path.startsWith(InternalProtocol.RAFT_PREFIX) || path.startsWith(InternalProtocol.META_PREFIX)
                || path.startsWith(InternalProtocol.MEMBERSHIP_PREFIX);
    }

    /** A Raft call or a metadata admin request, answered when the metadata group answers it. */
    private CompletionStage<Response> metadata(Request request) throws Exception {
        HttpHandler endpoint = request.path().startsWith(InternalProtocol.RAFT_PREFIX) ? raft
                : request.path().startsWith(InternalProtocol.MEMBERSHIP_PREFIX) ? membership : metaAdmin;
        return endpoint != null ? endpoint.handle(request)
                : CompletableFuture.completedFuture(Response.text(503, "this node runs no metadata group yet"));
    }

    private Response forbidden(Request request) {
        String peer = remote(request);
        if (refusals.allow(peer)) {
            LOG.warn("refused an internal {} {} from {}: missing or wrong proof of the cluster secret, a body other "
                    + "than the one it names, or a time more than {} ms off (fields {})", LogText.of(request.method()), LogText.of(request.path()), peer,
                    InternalAuth.WINDOW_MILLIS, LogText.of(InternalAuth.describe(request)));
        }
        return Response.text(403, "internal requests need a valid " + InternalAuth.AUTH_HEADER
                + " made with the cluster secret, within " + InternalAuth.WINDOW_MILLIS + " ms of this node's clock, and a body "
                + "matching " + InternalAuth.BODY_HEADER);
    }

    /** A request with a valid proof, but made for another node: replayed, or sent by a node with another list. */
    private Response misdirected(Request request) {
        String peer = remote(request);
        if (refusals.allow(peer)) {
            LOG.warn("refused an internal {} {} from {}: it is addressed to another node (a request captured on its way "
                    + "there and replayed here?); this node is {}", LogText.of(request.method()), LogText.of(request.path()),
                    peer, auth.self());
        }
        return Response.text(403, "this internal request is addressed to another node (" + InternalAuth.TO_HEADER
                + "); this node is " + auth.self());
    }

    private Response topologyMismatch(Request request) {
        String peer = request.headers().first(InternalAuth.NODE_HEADER).orElse("unknown");
        topologyWatch.mismatch(peer, request.headers().first(InternalAuth.TOPOLOGY_HEADER).orElse(null));
        return Response.text(409, "topology mismatch: this node's node list has fingerprint " + auth.topology()
                + "; start every node with the same --cluster list");
    }

    private static String remote(Request request) {
        return request.remote() == null ? "unknown" : request.remote().getAddress().getHostAddress();
    }

    /**
     * The answer to an authenticated request, made on this thread if storage can give it without
     * waiting ({@link #onLoop}'s batches, read or written from memory), else on
     * {@link #storageExecutor} (503 when it is full).
     */
    private CompletableFuture<Response> respondWithoutWaiting(Request request) throws StoreException {
        if (!answersOnLoop(request.method(), request.path())) {
            return CompletableFuture.completedFuture(respond(request, false));
        }
        try {
            return CompletableFuture.completedFuture(respond(request, true));
        } catch (WouldBlockException e) {
            return StorageFallback.run(storageExecutor, () -> respond(request, false))
                    .exceptionallyCompose(failure -> failure instanceof java.util.concurrent.RejectedExecutionException
                            ? CompletableFuture.completedFuture(Response.text(503, "overloaded, retry later"))
                            : CompletableFuture.failedFuture(failure));
        }
    }

    /**
     * The batches of replica reads and writes, the bulk of a node's internal traffic, are handled on
     * the event loop that read them: their storage calls are tried without waiting first
     * ({@link StorageEngine#getNow}, {@link StorageEngine#applyAllNow}) and go to the executor only
     * when that fails, so the common case hands nothing to another thread. Everything else runs on
     * the executor.
     */
    @Override
    public boolean onLoop(HeadAdmission.Head head) {
        return answersOnLoop(head.method(), head.path()) && head.contentLength() >= 0
                && head.contentLength() <= ON_LOOP_BODY_BYTES_MAX;
    }

    /**
     * The largest batch handled on the event loop (its length declared at the head): a larger one
     * would keep the loop's other connections waiting while its records are copied into RocksDB's
     * memtable and log, or its answer built.
     */
    static final long ON_LOOP_BODY_BYTES_MAX = 256 * 1024;

    private static boolean answersOnLoop(String method, String path) {
        return (path.equals(InternalProtocol.WRITES_PATH) && method.equals("PUT"))
                || (path.equals(InternalProtocol.READS_PATH) && method.equals("POST"));
    }

    /**
     * The answer to an authenticated request.
     *
     * @param now storage calls of the read and write batches must not wait ({@link WouldBlockException} if they would)
     */
    private Response respond(Request request, boolean now) throws StoreException {
        try {
            return switch (request.path()) {
                case InternalProtocol.READS_PATH -> request.method().equals("POST")
                        ? postReads(request, now) : Response.text(405, "use POST").withHeader("Allow", "POST");
                case InternalProtocol.WRITES_PATH -> request.method().equals("PUT")
                        ? putWrites(request, now) : Response.text(405, "use PUT").withHeader("Allow", "PUT");
                case InternalProtocol.DIGEST_PATH -> request.method().equals("GET")
                        ? Response.of(200, DigestBuckets.encode(digest(request)))
                                .withHeader("Content-Type", "application/octet-stream")
                        : Response.text(405, "use GET").withHeader("Allow", "GET");
                case InternalProtocol.VERSIONS_PATH -> switch (request.method()) {
                    case "GET" -> versions(request);
                    case "POST" -> postVersions(request);
                    default -> Response.text(405, "use GET (by digest bucket) or POST (by key)").withHeader("Allow", "GET, POST");
                };
                case InternalProtocol.REPAIR_PATH -> repair(request);
                case InternalProtocol.CLEANUP_PATH -> cleanup(request);
                case InternalProtocol.TIME_PATH -> request.method().equals("GET")
                        ? Response.text(200, Long.toString(clock.wallMillis())) : Response.text(405, "use GET").withHeader("Allow", "GET");
                case InternalProtocol.PAXOS_PREPARE_PATH -> request.method().equals("POST")
                        ? paxosPrepare(request) : Response.text(405, "use POST").withHeader("Allow", "POST");
                case InternalProtocol.PAXOS_ACCEPT_PATH -> request.method().equals("POST")
                        ? paxosAccept(request) : Response.text(405, "use POST").withHeader("Allow", "POST");
                case InternalProtocol.RANGE_PATH -> request.method().equals("GET")
                        ? range(request) : Response.text(405, "use GET").withHeader("Allow", "GET");
                default -> Response.text(404, "no internal endpoint " + request.path());
            };
        } catch (IllegalArgumentException e) {
            return Response.text(400, e.getMessage());
        }
    }

    /**
     * A compare-and-set's prepare ({@link PaxosAcceptor#prepare}). A malformed message, or a ballot
     * further ahead of this node's clock than the bound, is refused (400) before anything is stored.
     */
    private Response paxosPrepare(Request request) throws StoreException {
        PaxosMessages.Prepare prepare = PaxosMessages.decodePrepare(request.body());
        refuseIfAhead(request, prepare.ballot());
        clock.observe(prepare.ballot());
        try {
            return paxosAnswer(PaxosMessages.encode(acceptor.prepare(prepare.key(), prepare.ballot(), senderEpoch(request))));
        } catch (PaxosEpochException e) {
            return paxosRefused(e);
        }
    }

    /** A compare-and-set's accept ({@link PaxosAcceptor#accept}), checked as a prepare is. */
    private Response paxosAccept(Request request) throws StoreException {
        PaxosMessages.Accept accept = PaxosMessages.decodeAccept(request.body());
        refuseIfAhead(request, accept.ballot());
        clock.observe(accept.ballot());
        try {
            return paxosAnswer(PaxosMessages.encode(acceptor.accept(accept.key(), accept.ballot(), accept.record(),
                    senderEpoch(request))));
        } catch (PaxosEpochException e) {
            return paxosRefused(e);
        }
    }

    /**
     * The epoch the sender's field names (a batch's routing epoch, a Paxos round's), which the gate
     * has parsed already; -1 ({@link PaxosAcceptor#NO_EPOCH}) without one.
     */
    private static long senderEpoch(Request request) {
        return request.headers().first(InternalProtocol.EPOCH_HEADER).map(Long::parseLong).orElse(PaxosAcceptor.NO_EPOCH);
    }

    private static Response paxosAnswer(byte[] body) {
        return Response.of(200, body).withHeader("Content-Type", "application/octet-stream");
    }

    /** A round this acceptor takes no part in (retryable: the proposer starts again under the metadata of now). */
    private static Response paxosRefused(PaxosEpochException refusal) {
        return Response.text(503, refusal.getMessage()).withHeader("Retry-After", "1");
    }

    /**
     * Reads a coordinator's batch of keys and answers each ({@link ReadBatchCodec}); once the answer
     * carries {@link ReadBatchCodec#ANSWER_VALUE_BYTES} of values, the keys left are deferred unread
     * (the coordinator asks for them alone), so an answer stays small whatever the values' sizes.
     */
    private Response postReads(Request request, boolean now) throws StoreException {
        List<byte[]> keys = ReadBatchCodec.decodeRequest(request.body());
        List<ReadBatchCodec.Answer> answers = new ArrayList<>(keys.size());
        long valueBytes = 0;
        for (byte[] key : keys) {
            if (valueBytes >= ReadBatchCodec.ANSWER_VALUE_BYTES) {
                answers.add(ReadBatchCodec.Answer.ASK_ALONE);
                continue;
            }
            Optional<Record> stored = now ? engine.getNow(key) : engine.get(key);
            answers.add(stored.isPresent() ? new ReadBatchCodec.Answer(stored.get(), false) : ReadBatchCodec.Answer.NOT_FOUND);
            valueBytes += stored.map(record -> record.value().length).orElse(0);
        }
        return Response.of(200, ReadBatchCodec.encodeAnswers(answers)).withHeader("Content-Type", "application/octet-stream");
    }

    /**
     * Answers a batch of keys with this node's version of each, values left out
     * ({@link BucketVersionStream#versionOf}): how a node about to drop records it no longer owns
     * learns which of them an owner already holds, so that it sends only the others. The answer is
     * small whatever the values' sizes (about 20 bytes a key), so no key is deferred.
     */
    private Response postVersions(Request request) throws StoreException {
        List<byte[]> keys = ReadBatchCodec.decodeRequest(request.body());
        List<ReadBatchCodec.Answer> answers = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            Optional<Record> stored = engine.get(key);
            answers.add(stored.isPresent() ? new ReadBatchCodec.Answer(BucketVersionStream.versionOf(stored.get()), false)
                    : ReadBatchCodec.Answer.NOT_FOUND);
        }
        return Response.of(200, ReadBatchCodec.encodeAnswers(answers)).withHeader("Content-Type", "application/octet-stream");
    }

    /**
     * Applies a coordinator's batch of new writes, each by last-write-wins, in one storage write, and
     * answers each ({@link WriteBatchCodec}). A write stamped too far ahead of this node's clock is
     * refused alone (its answer says so) and its timestamp not observed; a malformed batch changes
     * nothing ({@code 400}). A batch routed under an older metadata epoch than this node's is then
     * shown to the cleanup, which hands on and drops what this node no longer owns ({@link Cleanup#storedFrom}).
     */
    private Response putWrites(Request request, boolean now) throws StoreException {
        WriteBatchCodec.Batch batch = WriteBatchCodec.decodeRequest(request.body());
        int writes = batch.keys().size();
        long[] answers = new long[writes];
        List<byte[]> keys = new ArrayList<>(writes);
        List<Record> records = new ArrayList<>(writes);
        int[] position = new int[writes];
        for (int i = 0; i < writes; i++) {
            Record record = batch.records().get(i);
            if (isAhead(request, record.timestamp())) {
                answers[i] = WriteBatchCodec.REFUSED_AHEAD;
                continue;
            }
            clock.observe(record.timestamp());
            position[keys.size()] = i;
            keys.add(batch.keys().get(i));
            records.add(record);
        }
        Record[] keptOut = now ? engine.applyAllNow(keys, records) : engine.applyAll(keys, records);
        for (int j = 0; j < keptOut.length; j++) {
            answers[position[j]] = keptOut[j] == null ? WriteBatchCodec.STORED : keptOut[j].timestamp();
        }
        Cleanup mounted = cleanup;
        if (mounted != null) {
            // Well formed: the epoch gate refused the request otherwise.
            mounted.storedFrom(senderEpoch(request), keys);
        }
        return Response.of(200, WriteBatchCodec.encodeAnswers(answers)).withHeader("Content-Type", "application/octet-stream");
    }

    /**
     * A timestamp further ahead of this node's clock than the bound is refused (400), never observed:
     * a peer with a fast clock, or a forged record, must not drag this clock along.
     */
    private void refuseIfAhead(Request request, long timestamp) {
        if (isAhead(request, timestamp)) {
            throw new IllegalArgumentException("timestamp " + HybridLogicalClock.format(timestamp) + " is more than "
                    + clockSkew.boundMillis() + " ms ahead of this node's clock");
        }
    }

    /** Whether {@code timestamp} is beyond the bound; logs the refusal (rate-limited per peer) when it is. */
    private boolean isAhead(Request request, long timestamp) {
        if (!clock.isAheadBy(timestamp, clockSkew.boundMillis())) {
            return false;
        }
        String peer = request.headers().first(InternalAuth.NODE_HEADER).orElse("unknown");
        if (aheadLog.allow(peer)) {
            LOG.warn("refused a record from {} stamped {}, more than {} ms ahead of this node's clock ({})", LogText.of(peer),
                    HybridLogicalClock.format(timestamp), clockSkew.boundMillis(), java.time.Instant.ofEpochMilli(clock.wallMillis()));
        }
        return true;
    }

    /**
     * This node's digest for a peer's round: the live one (no scan), of the keys both own under the
     * peer's {@link InternalProtocol#RF_PARAM} when it sends one; a full scan of every key without
     * anti-entropy (tests).
     */
    private long[] digest(Request request) throws StoreException {
        OptionalInt rf = replicationFactor(request);
        long[] live = antiEntropy == null ? null
                : rf.isPresent() ? antiEntropy.digestFor(requester(request), rf.getAsInt()) : antiEntropy.digestNow();
        return live != null ? live : DigestBuckets.digest(engine);
    }

    private Response versions(Request request) throws StoreException {
        java.util.BitSet buckets = DigestBuckets.decodeBuckets(param(request, InternalProtocol.BUCKETS_PARAM));
        OptionalInt rf = replicationFactor(request);
        java.util.function.Predicate<byte[]> keys = rf.isPresent() && antiEntropy != null
                ? antiEntropy.sharedWith(requester(request), rf.getAsInt()) : key -> true;
        RangeCursor cursor = engine.range(new byte[0], null);
        RecordStream scan = new LocalRecordStream(cursor);
        if (antiEntropy != null) {
            scan = new PacedRecordStream(scan, antiEntropy.pacer());
        }
        return Response.streamed(200, new RecordFrameSource(new BucketVersionStream(scan, buckets, keys)))
                .withHeader("Content-Type", "application/octet-stream");
    }

    /** The requester's replication factor, when it sent one: 1 to 9 ASCII digits (the range is checked by the user). */
    private static OptionalInt replicationFactor(Request request) {
        Optional<String> text = request.queryParam(InternalProtocol.RF_PARAM);
        if (text.isEmpty()) {
            return OptionalInt.empty();
        }
        String digits = text.get();
        if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(InternalProtocol.RF_PARAM + " must be a decimal number, got "
                    + LogText.of(digits));
        }
        return OptionalInt.of(Integer.parseInt(digits));
    }

    /** The authenticated sender of {@code request} (its proof covers the node field). */
    private static String requester(Request request) {
        return header(request, InternalAuth.NODE_HEADER);
    }

    private Response repair(Request request) {
        return antiEntropy == null ? Response.text(404, "this node runs no anti-entropy (a one-node cluster)")
                : backgroundRun(request, antiEntropy::requestRound, () -> antiEntropy.status().toJson(), "roundsCompletedBefore");
    }

    private Response cleanup(Request request) {
        Cleanup running = cleanup;
        return running == null ? Response.text(404, "this node runs no cleanup (a one-node cluster owns every key)")
                : backgroundRun(request, running::request, () -> running.status().toJson(), "runsCompletedBefore");
    }

    /**
     * A background run's endpoint (anti-entropy's repair round, a cleanup): POST starts one unless
     * one runs, 202 with the runs completed before (under {@code beforeField}) and the status; GET
     * answers the status (JSON).
     */
    private static Response backgroundRun(Request request, java.util.function.LongSupplier start,
                                          java.util.function.Supplier<String> statusJson, String beforeField) {
        return switch (request.method()) {
            case "POST" -> {
                long before = start.getAsLong();
                yield Response.of(202, ("{\"" + beforeField + "\":" + before + ",\"status\":" + statusJson.get() + "}")
                        .getBytes(StandardCharsets.UTF_8)).withHeader("Content-Type", "application/json");
            }
            case "GET" -> Response.of(200, statusJson.get().getBytes(StandardCharsets.UTF_8))
                    .withHeader("Content-Type", "application/json");
            default -> Response.text(405, "use GET or POST").withHeader("Allow", "GET, POST");
        };
    }

    private Response range(Request request) throws StoreException {
        byte[] start = InternalProtocol.decodeKey(param(request, InternalProtocol.START_PARAM));
        Optional<String> end = request.queryParam(InternalProtocol.END_PARAM);
        RangeCursor cursor = engine.range(start, end.isPresent() ? InternalProtocol.decodeKey(end.get()) : null);
        return Response.streamed(200, new RecordFrameSource(new LocalRecordStream(cursor)))
                .withHeader("Content-Type", "application/octet-stream");
    }

    private static byte[] key(Request request, String name) {
        byte[] key = InternalProtocol.decodeKey(param(request, name));
        if (key.length == 0) {
            throw new IllegalArgumentException("empty " + name);
        }
        return key;
    }

    private static String param(Request request, String name) {
        return request.queryParam(name).orElseThrow(() -> new IllegalArgumentException("missing " + name));
    }

    private static String header(Request request, String name) {
        return request.headers().first(name).orElseThrow(() -> new IllegalArgumentException("missing " + name));
    }
}

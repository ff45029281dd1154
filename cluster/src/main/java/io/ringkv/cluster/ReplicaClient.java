package io.ringkv.cluster;

import io.ringkv.cluster.peer.PeerAnswer;
import io.ringkv.cluster.peer.PeerRequest;
import io.ringkv.cluster.peer.PeerStreamedAnswer;
import io.ringkv.cluster.peer.PeerTransport;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.Record;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The client side of the node-to-node protocol ({@link InternalProtocol}, docs/cluster.md): reads,
 * writes and range streams against other nodes, over a shared {@link PeerTransport}.
 *
 * <p>Asynchronous: every call returns at once with a future completed by the transport (on an
 * event loop: continuations that block move elsewhere); no thread waits for a reply. Every request
 * carries {@link #requestTimeout}, so a dead or partitioned node fails the future after at most
 * that long (as an {@link java.net.http.HttpTimeoutException}). Failures, including unexpected statuses
 * ({@link ReplicaException}), complete the future exceptionally; nothing is thrown.
 *
 * <p>Every answer used must carry the proof that the peer made it for this very request
 * ({@link AnswerAuth}): whole bodies are checked before anything in them is used, streamed ones
 * segment by segment as they are read. An answer without a valid proof fails the call like any
 * other failure of the peer, and is counted ({@link #rejectedAnswers()}).
 *
 * <p>Threading: immutable, thread-safe; one instance per node process.
 */
public final class ReplicaClient {

    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(1);
    /**
     * The body of one batch request to a peer (records, writes, reads) grows to this at most unless
     * the peers' body limit is lower: large enough that a batch of small records costs one request,
     * small enough that one batch never holds up a connection for long.
     */
    public static final int BATCH_BODY_BYTES_DEFAULT = 512 * 1024;
    private static final byte[] NO_BODY = new byte[0];

    private final PeerTransport peers;
    private final Duration requestTimeout;
    private final InternalAuth auth;
    private final AnswerAuth answers;
    private final RejectedAnswers rejections = new RejectedAnswers();
    private final TopologyWatch topologyWatch;
    private final int batchBodyBytesMax;
    private final EpochExchange epochs;

    /** For peers with the default body limit ({@link InterNodeTransport#PEER_BODY_BYTES_DEFAULT}). */
    public ReplicaClient(PeerTransport peers, Duration requestTimeout, InternalAuth auth, TopologyWatch topologyWatch) {
        this(peers, requestTimeout, auth, topologyWatch, InterNodeTransport.PEER_BODY_BYTES_DEFAULT);
    }

    /**
     * @param peers            carries the requests ({@link io.ringkv.cluster.peer.H2PeerTransport}, or an
     *                         {@code HttpClient} through {@link io.ringkv.cluster.peer.HttpClientTransport})
     * @param requestTimeout   per request, until the response head arrives
     * @param auth             signs every request ({@link InternalAuth})
     * @param topologyWatch    told of peers that answer 409 (another node list)
     * @param peerBodyBytesMax the largest request body the peers take (their {@code --max-body});
     *                         every batch request stays within it ({@link #batchBodyBytesMax})
     */
    public ReplicaClient(PeerTransport peers, Duration requestTimeout, InternalAuth auth, TopologyWatch topologyWatch,
                         long peerBodyBytesMax) {
        this(peers, requestTimeout, auth, topologyWatch, peerBodyBytesMax, EpochExchange.NONE);
    }

    /**
     * @param epochs the metadata epoch every request carries ({@link InternalProtocol#EPOCH_HEADER}),
     *               and what to do when a verified answer names a newer one
     */
    public ReplicaClient(PeerTransport peers, Duration requestTimeout, InternalAuth auth, TopologyWatch topologyWatch,
                         long peerBodyBytesMax, EpochExchange epochs) {
        if (peerBodyBytesMax < 0) {
            throw new IllegalArgumentException("the peers' body limit must not be negative, got " + peerBodyBytesMax);
        }
        this.peers = peers;
        this.requestTimeout = requestTimeout;
        this.auth = auth;
        this.answers = auth.answers();
        this.topologyWatch = topologyWatch;
        this.batchBodyBytesMax = (int) Math.min(BATCH_BODY_BYTES_DEFAULT, peerBodyBytesMax);
        this.epochs = java.util.Objects.requireNonNull(epochs, "epochs");
    }

    /**
     * The most bytes a batch request's body may have: {@link #BATCH_BODY_BYTES_DEFAULT}, or the
     * peers' body limit when lower, so that a peer never refuses a batch for its size. A record that
     * does not fit a batch alone travels as a batch of its own ({@link #write}), which a peer takes
     * up to its body limit plus {@link InternalProtocol#ONE_WRITE_ENVELOPE_BYTES}: whenever its
     * public API would have taken the value.
     */
    public int batchBodyBytesMax() {
        return batchBodyBytesMax;
    }

    /**
     * Reads {@code key} from {@code node} as a read batch of one ({@link #readEach}): a key too long
     * to share a batch, one a batch's answer deferred, every read with batching off. A node answers
     * the first key of a batch whatever its value's size, so a deferral here is the peer's fault.
     */
    public CompletableFuture<Optional<Record>> read(ClusterNode node, byte[] key) {
        return readEach(node, List.of(key)).thenApply(answers -> {
            ReadBatchCodec.Answer answer = answers.getFirst();
            if (answer.deferred()) {
                throw new CompletionException(new ReplicaException(node, "deferred the only key of a read batch"));
            }
            return answer.found();
        });
    }

    /**
     * Stores {@code record} on {@code node} by last-write-wins, as a write batch of one
     * ({@link #writeEach}); completes with the timestamp of the fresher record the node keeps
     * instead, or empty when it now holds {@code record} ({@link #writeOutcome}).
     */
    public CompletableFuture<OptionalLong> write(ClusterNode node, byte[] key, Record record) {
        return write(node, key, record, -1);
    }

    /** As above, routed by the view of metadata epoch {@code routedAt} ({@link #writeEach(ClusterNode, List, List, long)}). */
    public CompletableFuture<OptionalLong> write(ClusterNode node, byte[] key, Record record, long routedAt) {
        return writeEach(node, List.of(key), List.of(record), routedAt)
                .thenApply(answers -> writeOutcome(node, record, answers[0]));
    }

    /**
     * What a peer's answer to one write of a batch ({@link WriteBatchCodec}) means for the writer:
     * empty once the peer holds {@code record}; the timestamp of a fresher record it keeps instead;
     * a {@link RecordsRefusedException} (status 400, the write alone) when it refused the record as
     * stamped beyond its clock bound, so that a sender of many records tells that record's refusal
     * from a failure of the peer.
     *
     * @throws CompletionException with that refusal
     */
    static OptionalLong writeOutcome(ClusterNode node, Record record, long answered) {
        if (answered == WriteBatchCodec.STORED) {
            return OptionalLong.empty();
        }
        if (answered == WriteBatchCodec.REFUSED_AHEAD) {
            throw new CompletionException(refusedAhead(node, record));
        }
        return answered > record.timestamp() ? OptionalLong.of(answered) : OptionalLong.empty();
    }

    /** What {@code node}'s answer {@link WriteBatchCodec#REFUSED_AHEAD} to the write of {@code record} means. */
    static RecordsRefusedException refusedAhead(ClusterNode node, Record record) {
        return new RecordsRefusedException(node, "refused a record stamped " + HybridLogicalClock.format(record.timestamp())
                + ": further ahead of its clock than the bound", 400);
    }

    /**
     * Sends writes to {@code node} in one request ({@link InternalProtocol#WRITES_PATH}, see
     * {@link WriteBatchCodec}); completes with the node's answer per write, in order. Every write
     * between nodes travels so: a coordinator's ({@link PeerWriteBatcher}), a read repair, a
     * replayed hint, an anti-entropy or hand-over push ({@link RecordPusher}).
     *
     * <p>The request is stamped with {@code routedAt}, the metadata epoch under which the records'
     * targets were chosen, when it is below this node's epoch of now: a receiver that knows a newer
     * epoch then checks whether it still owns what it stored (a copy sent under the older owners may
     * land after its cleanup read past the key; {@link Cleanup#storedFrom}).
     *
     * @param keys     at most {@link WriteBatchCodec#RECORDS_MAX}, any order, a key possibly more than once
     * @param routedAt the epoch of the membership view the writes were routed by; negative: this node's epoch of now
     */
    CompletableFuture<long[]> writeEach(ClusterNode node, List<byte[]> keys, List<Record> records, long routedAt) {
        int writes = keys.size();
        long now = epochs.epoch();
        return sendBatch(node, "PUT", InternalProtocol.WRITES_PATH, routedAt < 0 ? now : Math.min(routedAt, now),
                WriteBatchCodec.encodeRequest(keys, records), "write batch", answers -> WriteBatchCodec.decodeAnswers(answers, writes));
    }

    /** The metadata epoch this node's requests carry now ({@link EpochExchange#epoch}; negative: none). */
    long epoch() {
        return epochs.epoch();
    }

    /**
     * Reads keys from {@code node} in one request ({@link InternalProtocol#READS_PATH}, see
     * {@link ReadBatchCodec}); completes with the node's answer per key, in order. Used by
     * {@link PeerReadBatcher}, which asks again alone for the keys the node deferred.
     */
    CompletableFuture<List<ReadBatchCodec.Answer>> readEach(ClusterNode node, List<byte[]> keys) {
        int count = keys.size();
        return sendBatch(node, "POST", InternalProtocol.READS_PATH, ReadBatchCodec.encodeRequest(keys),
                "read batch", answers -> ReadBatchCodec.decodeAnswers(answers, count));
    }

    /**
     * {@code node}'s version of each key (values left out: {@link BucketVersionStream#versionOf}), in
     * one request ({@code POST} {@link InternalProtocol#VERSIONS_PATH}, a read batch's body and
     * answer); at most {@link ReadBatchCodec#KEYS_MAX} keys and {@link ReadBatchCodec#BYTES_MAX} bytes.
     */
    CompletableFuture<List<ReadBatchCodec.Answer>> versionsOf(ClusterNode node, List<byte[]> keys) {
        int count = keys.size();
        return sendBatch(node, "POST", InternalProtocol.VERSIONS_PATH, ReadBatchCodec.encodeRequest(keys),
                "versions batch", answers -> ReadBatchCodec.decodeAnswers(answers, count));
    }

    /**
     * A compare-and-set's prepare to {@code node}'s acceptor ({@link InternalProtocol#PAXOS_PREPARE_PATH}),
     * carrying the epoch its round was started under (negative: none), not this node's of now.
     */
    CompletableFuture<PaxosMessages.Promise> paxosPrepare(ClusterNode node, PaxosMessages.Prepare prepare, long roundEpoch) {
        return sendBatch(node, "POST", InternalProtocol.PAXOS_PREPARE_PATH, roundEpoch, PaxosMessages.encode(prepare),
                "paxos prepare", PaxosMessages::decodePromise);
    }

    /** A compare-and-set's accept to {@code node}'s acceptor ({@link InternalProtocol#PAXOS_ACCEPT_PATH}), as a prepare. */
    CompletableFuture<PaxosMessages.Accepted> paxosAccept(ClusterNode node, PaxosMessages.Accept accept, long roundEpoch) {
        return sendBatch(node, "POST", InternalProtocol.PAXOS_ACCEPT_PATH, roundEpoch, PaxosMessages.encode(accept),
                "paxos accept", PaxosMessages::decodeAccepted);
    }

    /**
     * Sends a batch's body to {@code path} and decodes the {@code 200} answer with {@code decode},
     * whose {@link IllegalArgumentException} becomes a {@link ReplicaException} naming {@code what}.
     */
    private <A> CompletableFuture<A> sendBatch(ClusterNode node, String method, String path, byte[] body, String what,
                                               java.util.function.Function<byte[], A> decode) {
        return sendBatch(node, method, path, epochs.epoch(), body, what, decode);
    }

    /** @param epoch the metadata epoch the request carries; negative: none */
    private <A> CompletableFuture<A> sendBatch(ClusterNode node, String method, String path, long epoch, byte[] body,
                                               String what, java.util.function.Function<byte[], A> decode) {
        Signed signed = request(node, method, path, null, Map.of(), epoch, body);
        return peers.send(signed.request())
                .thenApply(answer -> {
                    verify(node, signed.proof(), answer, 200);
                    expectStatus(node, answer, 200);
                    try {
                        return decode.apply(answer.body());
                    } catch (IllegalArgumentException e) {
                        throw new CompletionException(new ReplicaException(node, "malformed answer to a " + what + ": "
                                + e.getMessage(), e));
                    }
                });
    }

    /** {@code node}'s wall clock, epoch millis ({@link InternalProtocol#TIME_PATH}). */
    public CompletableFuture<Long> wallTime(ClusterNode node) {
        Signed signed = request(node, "GET", InternalProtocol.TIME_PATH, null, Map.of(), NO_BODY);
        return peers.send(signed.request())
                .thenApply(answer -> {
                    verify(node, signed.proof(), answer, 200);
                    expectStatus(node, answer, 200);
                    String body = new String(answer.body(), java.nio.charset.StandardCharsets.US_ASCII).strip();
                    try {
                        long millis = Long.parseLong(body);
                        if (millis >= 0) {
                            return millis;
                        }
                    } catch (NumberFormatException e) {
                        // answered below
                    }
                    throw new CompletionException(new ReplicaException(node, "malformed time answer (" + body.length() + " chars)"));
                });
    }

    /** {@code node}'s anti-entropy digest ({@link DigestBuckets}) of every key it holds. */
    public CompletableFuture<long[]> digest(ClusterNode node) {
        return digest(node, null);
    }

    /**
     * {@code node}'s anti-entropy digest of the keys it and this node both own under replication
     * factor {@code rf} (every key it holds when {@code rf} is null).
     */
    public CompletableFuture<long[]> digest(ClusterNode node, Integer rf) {
        Signed signed = request(node, "GET", InternalProtocol.DIGEST_PATH,
                rf == null ? null : InternalProtocol.RF_PARAM + "=" + rf, Map.of(), NO_BODY);
        return peers.send(signed.request())
                .thenApply(answer -> {
                    verify(node, signed.proof(), answer, 200);
                    expectStatus(node, answer, 200);
                    try {
                        return DigestBuckets.decode(answer.body());
                    } catch (IllegalArgumentException e) {
                        throw new CompletionException(new ReplicaException(node, "malformed digest: " + e.getMessage(), e));
                    }
                });
    }

    /**
     * Streams the versions (values left out) of {@code node}'s keys in the given digest buckets, in
     * key order; read it like {@link #openRange}.
     */
    public CompletableFuture<RecordStream> versions(ClusterNode node, java.util.BitSet buckets) {
        return versions(node, buckets, null);
    }

    /** As above, only of the keys it and this node both own under {@code rf} (all of them when null). */
    public CompletableFuture<RecordStream> versions(ClusterNode node, java.util.BitSet buckets, Integer rf) {
        Signed signed = request(node, "GET", InternalProtocol.VERSIONS_PATH,
                InternalProtocol.BUCKETS_PARAM + "=" + DigestBuckets.encodeBuckets(buckets)
                        + (rf == null ? "" : "&" + InternalProtocol.RF_PARAM + "=" + rf), Map.of(), NO_BODY);
        return peers.open(signed.request()).thenApply(answer -> toStream(node, signed.proof(), answer));
    }

    /**
     * Opens {@code node}'s share of {@code [start, end)}, tombstones included. The future
     * completes once the response head arrived; the body is then read as the caller pulls
     * entries (blocking reads: pull on an executor thread, never an event loop). A read that
     * waits longer than the request timeout for the next bytes fails, so a peer that stalls
     * mid-stream costs at most that long per read.
     *
     * @param end exclusive upper bound, or null for "to the last key"
     */
    public CompletableFuture<RecordStream> openRange(ClusterNode node, byte[] start, byte[] end) {
        String query = InternalProtocol.START_PARAM + "=" + InternalProtocol.encodeKey(start)
                + (end == null ? "" : "&" + InternalProtocol.END_PARAM + "=" + InternalProtocol.encodeKey(end));
        Signed signed = request(node, "GET", InternalProtocol.RANGE_PATH, query, Map.of(), NO_BODY);
        return peers.open(signed.request()).thenApply(answer -> toStream(node, signed.proof(), answer));
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** Answers refused for want of a valid proof, per peer id (for the node's metrics). */
    public Map<String, Long> rejectedAnswers() {
        return rejections.counts();
    }

    /** A signed request, and its proof, which the answer's must name. */
    private record Signed(PeerRequest request, String proof) {
    }

    /**
     * A request to {@code node} with {@code fields} and the proof of the cluster secret over them,
     * the receiver, the target and the body.
     */
    private Signed request(ClusterNode node, String method, String path, String query, Map<String, String> fields, byte[] body) {
        return request(node, method, path, query, fields, epochs.epoch(), body);
    }

    /** As above, carrying {@code epoch} (negative: none). */
    private Signed request(ClusterNode node, String method, String path, String query, Map<String, String> fields, long epoch,
                           byte[] body) {
        String target = path + (query == null ? "" : "?" + query);
        if (epoch >= 0) {
            Map<String, String> withEpoch = new java.util.HashMap<>(fields);
            withEpoch.put(InternalProtocol.EPOCH_HEADER, Long.toString(epoch));
            fields = withEpoch;
        }
        Map<String, String> signed = auth.sign(node.id(), method, target, fields, body);
        return new Signed(new PeerRequest(node.id(), method, target, signed, body, requestTimeout), InternalAuth.proofOf(signed));
    }

    /**
     * Fails the call unless an answer it would use carries the proof made for this request; runs
     * before anything is read of the answer. Used are the status the call expects and a 409
     * (another node list). Any other status fails the call in {@link #expectStatus} unread, so its
     * proof is not asked for: a refusal (403) or a server error carries none, and failing the call
     * is all a forged one could bring about. That includes a refusal of the content (400, or 413
     * from the server before any handler ran, {@link RecordsRefusedException}): a forged one makes
     * the sender split its batch and leave a record to anti-entropy, as dropping the request would.
     */
    private void verify(ClusterNode node, String requestProof, PeerAnswer answer, int expected) {
        int status = answer.status();
        if (status != expected && status != 409) {
            return;
        }
        if (!answers.verifies(requestProof, status, answer.fields(), answer.body())) {
            throw new CompletionException(rejections.reject(node, "the answer (status " + status + ") to "
                    + answer.request().method() + " " + answer.request().path()));
        }
        heardEpoch(node, answer.fields());
    }

    /**
     * Tells {@link #epochs} the metadata epoch of a verified answer. A field that does not parse
     * came from a node with the secret (the proof covers it), so it is a bug there, not an attack;
     * it is ignored rather than failing a call whose data is good.
     */
    private void heardEpoch(ClusterNode node, io.ringkv.http.Headers fields) {
        Optional<String> field = fields.first(InternalProtocol.EPOCH_HEADER);
        if (field.isEmpty()) {
            return;
        }
        try {
            epochs.heard(node, InternalProtocol.parseEpoch(field.get()));
        } catch (IllegalArgumentException e) {
            // see above
        }
    }

    /**
     * A 200 answer's records, verified segment by segment as they are read. Any other status fails
     * the call unread, so its proof is not checked, and a 409 here is not taken for a topology
     * mismatch (the peer's other answers say so with a proof).
     */
    private RecordStream toStream(ClusterNode node, String requestProof, PeerStreamedAnswer answer) {
        if (answer.status() != 200) {
            closeQuietly(answer.body());
            throw new CompletionException(new ReplicaException(node, "status " + answer.status() + " for "
                    + answer.request().method() + " " + answer.request().path()));
        }
        if (!answers.verifiesSegmentedHead(requestProof, answer.status(), answer.fields())) {
            closeQuietly(answer.body());
            throw new CompletionException(rejections.reject(node, "the head of the answer to GET " + answer.request().path()));
        }
        heardEpoch(node, answer.fields());
        InputStream records = answers.segments(node, requestProof, answer.body(), RecordFrameSource.CHUNK_BYTES_MAX, rejections);
        return new RecordFrameReader(records, node.id());
    }

    private void expectStatus(ClusterNode node, PeerAnswer answer, int expected) {
        int status = answer.status();
        if (status == 409) {
            topologyWatch.mismatch(node.id(), null);
        }
        if (status != expected) {
            String reason = "status " + status + " for " + answer.request().method() + " " + answer.request().path();
            throw new CompletionException(RecordsRefusedException.refusesContent(status)
                    ? new RecordsRefusedException(node, reason, status)
                    : new ReplicaException(node, reason));
        }
    }

    private static void closeQuietly(InputStream body) {
        try {
            body.close();
        } catch (IOException e) {
            // The response is rejected already; a failure to discard its body changes nothing.
        }
    }
}

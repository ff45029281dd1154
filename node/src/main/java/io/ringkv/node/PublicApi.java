package io.ringkv.node;

import io.ringkv.cluster.CasOutcome;
import io.ringkv.cluster.ClockRefusedException;
import io.ringkv.cluster.LiveRangeCursor;
import io.ringkv.cluster.ReplicaException;
import io.ringkv.cluster.ReplicationParams;
import io.ringkv.cluster.Ttl;
import io.ringkv.http.server.ChunkSource;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.store.Record;
import io.ringkv.store.StoreException;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public HTTP API, {@code /v0/...}: validates parameters (400 with a message) and maps the
 * data layer's outcomes to statuses. The node-to-node plane ({@code /internal/}) does not come
 * here: {@link NodeRouter} sends it to its own handler.
 *
 * <p>Statuses: PUT 201, DELETE 202, GET 200/404 (304 for an {@code If-None-Match} naming the
 * version it would return), 400 for bad parameters and unknown paths (the protocol's original
 * clients expect 400, not 404), 405 with {@code Allow} for an unsupported method, 504 when too
 * few replicas answered, 500 for storage failures.
 *
 * <p>A read of a key names its version ({@code ETag}, {@code Last-Modified}, see
 * {@link RecordVersion}), and for a value written with {@code ttl=SECONDS} the time it has left
 * ({@link ExpiresIn}); an expired value reads as absent. {@code ttl} is a PUT's parameter only
 * ({@link Ttl#parse}: 400 for anything else, and on any other method).
 *
 * <p>A PUT or DELETE with {@code If-Match}, {@code If-None-Match} or {@code If-Unmodified-Since}
 * ({@link WriteCondition}) is a compare-and-set among the key's replicas
 * ({@link EntityService#putIf}): 201 (with the new {@code ETag}) or 204 when the condition held
 * and the write is stored, 412 (with the current {@code ETag}) when it did not, 503 when nothing
 * was written (contention or too few replicas, retry), 504 when the outcome is unknown. A write
 * without these fields takes the plain path, answered as before. A node started with {@code serve
 * --no-conditional-writes} refuses such a write with 501 and does not perform it.
 *
 * <p>A range comes whole, streamed as it is read, or in pages ({@code limit}): a page is read in
 * full before its answer, one record past it, so that the answer's head can name the next page
 * ({@link RangePage}, {@link NextPageLink}).
 *
 * <p>Threading: stateless. Reads and plain writes of one key ({@link #answersOnLoop}) are handled
 * on the event loop that read them: the coordinator's storage calls are tried without waiting and
 * go to the handler executor only when they would block ({@code LocalReplica}), and the replicas'
 * answers complete on the inter-node client's loops. Everything else (conditional writes, whose
 * compare-and-set state is read and written on disk, ranges) is called on the handler executor.
 */
public final class PublicApi implements HttpHandler {
    private static final Logger log = LoggerFactory.getLogger(PublicApi.class);
    static final String ENTITY_PATH = "/v0/entity";
    static final String ENTITIES_PATH = "/v0/entities";
    static final String TTL_PARAM = "ttl";
    /** The longest key, in bytes (see {@link KeyParameters}). */
    public static final int KEY_BYTES_MAX = KeyParameters.KEY_BYTES_MAX;

    private final EntityService entities;
    private final LongSupplier wallClockMillis;
    /** False ({@code serve --no-conditional-writes}) refuses a conditional write with 501. */
    private final boolean conditionalWrites;

    /** @param conditionalWrites serve conditional writes as a compare-and-set; false refuses them with 501 */
    public PublicApi(EntityService entities, boolean conditionalWrites) {
        this(entities, System::currentTimeMillis, conditionalWrites);
    }

    /** @param wallClockMillis the time of an answer, so that {@code Last-Modified} is never later */
    PublicApi(EntityService entities, LongSupplier wallClockMillis, boolean conditionalWrites) {
        this.entities = entities;
        this.wallClockMillis = wallClockMillis;
        this.conditionalWrites = conditionalWrites;
    }

    @Override
    public CompletionStage<Response> handle(Request request) throws Exception {
        return switch (request.path()) {
            case ENTITY_PATH -> entity(request);
            case ENTITIES_PATH -> onlyGet(request, () -> entities(request));
            default -> other(request);
        };
    }

    private CompletionStage<Response> other(Request request) {
        return done(Response.text(400, "unknown path " + request.path()));
    }

    /**
     * The largest PUT body handled on the event loop: a larger one would keep the loop's other
     * connections waiting while it is copied into RocksDB's memtable and log.
     */
    static final long ON_LOOP_BODY_BYTES_MAX = 64 * 1024;

    /**
     * Whether the server may run this request's handler on its event loop
     * ({@link io.ringkv.http.server.HeadAdmission#onLoop}): a GET, HEAD, PUT or DELETE of
     * {@code /v0/entity} without a write condition, which never blocks (see the class comment); a
     * PUT only with a declared body of at most {@link #ON_LOOP_BODY_BYTES_MAX}.
     */
    static boolean answersOnLoop(io.ringkv.http.server.HeadAdmission.Head head) {
        if (!head.path().equals(ENTITY_PATH)) {
            return false;
        }
        return switch (head.method()) {
            case "GET", "HEAD" -> true;
            case "PUT" -> head.contentLength() >= 0 && head.contentLength() <= ON_LOOP_BODY_BYTES_MAX && unconditional(head);
            case "DELETE" -> unconditional(head);
            default -> false;
        };
    }

    /** Asked on the loop for every write: a plain loop over the three fields, no stream. */
    private static boolean unconditional(io.ringkv.http.server.HeadAdmission.Head head) {
        for (String field : WriteCondition.FIELDS) {
            if (head.headers().first(field).isPresent()) {
                return false;
            }
        }
        return true;
    }

    private CompletionStage<Response> entity(Request request) {
        String method = request.method();
        if (!method.equals("GET") && !method.equals("HEAD") && !method.equals("PUT") && !method.equals("DELETE")) {
            return done(Response.text(405, method + " is not supported on /v0/entity").withHeader("Allow", "GET, HEAD, PUT, DELETE"));
        }
        byte[] key;
        ReplicationParams replicas;
        IfNoneMatch condition;
        Optional<WriteCondition> writeCondition;
        Optional<Ttl> ttl;
        try {
            key = KeyParameters.required(request, "id");
            replicas = ReplicationParams.parse(request.queryParam("replicas").orElse(null), entities.clusterSize(),
                    entities.replicationFactor());
            ttl = ttl(request);
            boolean read = method.equals("GET") || method.equals("HEAD");
            condition = read ? IfNoneMatch.parse(request.headers().all(IfNoneMatch.FIELD)) : IfNoneMatch.NONE;
            writeCondition = read || !conditionalWrites ? Optional.empty() : WriteCondition.of(request, wallClockMillis);
        } catch (IllegalArgumentException badParameter) {
            return done(Response.text(400, badParameter.getMessage()));
        }
        if (!conditionalWrites && (method.equals("PUT") || method.equals("DELETE"))) {
            Optional<String> precondition = WriteCondition.FIELDS.stream()
                    .filter(field -> request.headers().first(field).isPresent()).findFirst();
            if (precondition.isPresent()) {
                return done(Response.text(501, precondition.get() + " on " + method + " is off on this node (started"
                        + " with serve --no-conditional-writes); nothing was written"));
            }
        }
        if (writeCondition.isPresent()) {
            CompletableFuture<CasOutcome> written = method.equals("PUT")
                    ? entities.putIf(key, request.body(), ttl, writeCondition.get(), replicas)
                    : entities.deleteIf(key, writeCondition.get(), replicas);
            return written.thenApply(result -> conditionalAnswer(method, result)).exceptionally(PublicApi::failure);
        }
        CompletableFuture<Response> outcome = switch (method) {
            case "PUT" -> entities.put(key, request.body(), ttl, replicas).thenApply(ignored -> Response.of(201));
            case "DELETE" -> entities.delete(key, replicas).thenApply(ignored -> Response.of(202));
            default -> entities.get(key, replicas).thenApply(found -> found(found, condition));
        };
        return outcome.exceptionally(PublicApi::failure);
    }

    /**
     * The answer to a conditional write: 201 with the new version's {@code ETag} for a PUT, 204 for
     * a DELETE, 412 with the current version's {@code ETag} (when the key has a value) when the
     * condition failed, 503 when nothing was written for want of replicas or after losing to
     * concurrent conditional writes, 504 when the outcome is unknown.
     */
    private static Response conditionalAnswer(String method, CasOutcome outcome) {
        return switch (outcome) {
            case CasOutcome.Applied applied -> method.equals("PUT")
                    ? Response.of(201).withHeader("ETag", new RecordVersion(applied.record().timestamp()).entityTag())
                    : Response.of(204);
            case CasOutcome.Refused refused -> {
                Response answer = Response.text(412, refused.live().isPresent()
                        ? "precondition failed: the key's current version is " + tagOf(refused.live().get()) + "; nothing was written"
                        : "precondition failed: the key has no value; nothing was written");
                yield refused.live().isPresent() ? answer.withHeader("ETag", tagOf(refused.live().get())) : answer;
            }
            case CasOutcome.NotWritten notWritten -> Response.text(503, notWritten.message());
            case CasOutcome.Unknown unknown -> Response.text(504, unknown.message());
        };
    }

    private static String tagOf(Record record) {
        return new RecordVersion(record.timestamp()).entityTag();
    }

    /**
     * A PUT's time to live, empty without one.
     *
     * @throws IllegalArgumentException for a malformed one, or one on another method (the 400's message)
     */
    private static Optional<Ttl> ttl(Request request) {
        Optional<String> given = request.queryParam(TTL_PARAM);
        if (given.isPresent() && !request.method().equals("PUT")) {
            throw new IllegalArgumentException("ttl is a parameter of PUT only, not of " + request.method());
        }
        return given.map(Ttl::parse);
    }

    private Response found(Optional<Record> found, IfNoneMatch condition) {
        if (found.isEmpty()) {
            return Response.text(404, "no such key");
        }
        Record record = found.get();
        OptionalLong secondsLeft = OptionalLong.empty();
        if (record.expires()) {
            long now = entities.expiryClockMillis();
            if (record.expiredAt(now)) {
                return Response.text(404, "no such key"); // it expired after the read was decided
            }
            secondsLeft = ExpiresIn.seconds(record, now);
        }
        RecordVersion version = new RecordVersion(record.timestamp());
        String tag = version.entityTag();
        Response answer;
        if (condition.matches(tag)) {
            // RFC 9110 §15.4.5: a 304 repeats the validator and leaves out the representation's metadata,
            // but not what a cache needs to know of its freshness, which the time left is.
            answer = Response.of(304).withHeader("ETag", tag);
        } else {
            answer = Response.of(200, record.value()).withHeader("Content-Type", "application/octet-stream")
                    .withHeader("ETag", tag).withHeader("Last-Modified", version.lastModified(wallClockMillis.getAsLong()));
        }
        secondsLeft.ifPresent(seconds -> answer.withHeader(ExpiresIn.FIELD, Long.toString(seconds)));
        return answer;
    }

    private CompletionStage<Response> entities(Request request) {
        RangeQuery query;
        try {
            query = RangeQuery.read(request);
        } catch (IllegalArgumentException badParameter) {
            return done(Response.text(400, badParameter.getMessage()));
        }
        if (query.paged()) {
            return done(page(request, query));
        }
        return entities.range(query.start(), query.end(), query.localOnly())
                .thenApply(records -> rangeAnswer(new RangeChunks(records, query.format())))
                .exceptionally(PublicApi::failure);
    }

    /**
     * Waits for the range to open and reads the page here, on the handler thread: reading blocks
     * on the peers' streams, which must not happen on the thread that completes the opening (an
     * inter-node client's). The range is closed once the page is read, before it is sent.
     */
    private Response page(Request request, RangeQuery query) {
        CompletableFuture<LiveRangeCursor> opening = entities.range(query.start(), query.end(), query.localOnly());
        LiveRangeCursor records;
        try {
            records = opening.get();
        } catch (ExecutionException failed) {
            return failure(failed.getCause());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            opening.thenAccept(LiveRangeCursor::close); // it holds a range permit until closed
            return Response.text(503, "the node is stopping");
        }
        RangePage page;
        try (records) {
            page = RangePage.read(records, query.format(), query.limit(), RangePage.BYTES_MAX, KEY_BYTES_MAX);
        } catch (IOException readFailed) {
            return failure(readFailed);
        }
        Response answer = rangeAnswer(page.body());
        page.nextStart().ifPresent(next -> answer.withHeader("Link", NextPageLink.field(request, RangeQuery.START, next)));
        return answer;
    }

    private static Response rangeAnswer(ChunkSource chunks) {
        return Response.streamed(200, chunks).withHeader("Content-Type", "application/octet-stream");
    }

    private static CompletionStage<Response> onlyGet(Request request, Supplier<CompletionStage<Response>> action) {
        if (request.method().equals("GET") || request.method().equals("HEAD")) {
            return action.get();
        }
        return done(Response.text(405, request.method() + " is not supported on " + request.path())
                .withHeader("Allow", "GET, HEAD"));
    }

    private static Response failure(Throwable error) {
        Throwable cause = (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
        if (cause instanceof ClockRefusedException || cause instanceof RangeBusyException
                || cause instanceof io.ringkv.cluster.MembershipChangeException) {
            return Response.text(503, cause.getMessage());
        }
        if (cause instanceof NotEnoughReplicasException || cause instanceof ReplicaException) {
            return Response.text(504, cause.getMessage());
        }
        if (cause instanceof StoreException || cause instanceof IOException && cause.getCause() instanceof StoreException) {
            log.error("storage failure", cause);
            return Response.text(500, "storage failure: " + cause.getMessage());
        }
        if (cause instanceof IOException) {
            // A peer's range stream broke while a page was read (a whole range would be cut short instead).
            log.warn("range read failed", cause);
            return Response.text(504, "a node's range stream failed: " + cause.getMessage());
        }
        log.error("request failed", cause);
        return Response.text(500, "internal error");
    }

    private static CompletionStage<Response> done(Response response) {
        return CompletableFuture.completedFuture(response);
    }
}

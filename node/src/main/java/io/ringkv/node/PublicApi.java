package io.ringkv.node;

import io.ringkv.cluster.ClockRefusedException;
import io.ringkv.cluster.ReplicaException;
import io.ringkv.cluster.ReplicationParams;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.store.StoreException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public HTTP API, {@code /v0/...}: validates parameters (400 with a message), maps the
 * data layer's outcomes to statuses, and routes everything else under {@code /internal/} to the
 * node-to-node handler when there is one.
 *
 * <p>Statuses: PUT 201, DELETE 202, GET 200/404, 400 for bad parameters and unknown paths (the
 * protocol's original clients expect 400, not 404), 405 with {@code Allow} for an unsupported
 * method, 504 when too few replicas answered, 500 for storage failures.
 *
 * <p>Threading: stateless; called on the server's handler executor.
 */
public final class PublicApi implements HttpHandler {
    private static final Logger log = LoggerFactory.getLogger(PublicApi.class);
    private static final String INTERNAL_PREFIX = "/internal/";
    static final String ENTITY_PATH = "/v0/entity";
    static final String ENTITIES_PATH = "/v0/entities";
    /** The longest key, in bytes (see {@link #checkedKey}). */
    public static final int KEY_BYTES_MAX = 4096;

    private final EntityService entities;
    private final HttpHandler internal;

    /**
     * @param internal the node-to-node handler for {@code /internal/...}, or null for none
     */
    public PublicApi(EntityService entities, HttpHandler internal) {
        this.entities = entities;
        this.internal = internal;
    }

    @Override
    public CompletionStage<Response> handle(Request request) throws Exception {
        return switch (request.path()) {
            case ENTITY_PATH -> entity(request);
            case ENTITIES_PATH -> onlyGet(request, () -> entities(request));
            default -> other(request);
        };
    }

    private CompletionStage<Response> other(Request request) throws Exception {
        if (internal != null && request.path().startsWith(INTERNAL_PREFIX)) {
            return internal.handle(request);
        }
        return done(Response.text(400, "unknown path " + request.path()));
    }

    private CompletionStage<Response> entity(Request request) {
        String method = request.method();
        if (!method.equals("GET") && !method.equals("HEAD") && !method.equals("PUT") && !method.equals("DELETE")) {
            return done(Response.text(405, method + " is not supported on /v0/entity").withHeader("Allow", "GET, HEAD, PUT, DELETE"));
        }
        byte[] key;
        ReplicationParams replicas;
        try {
            key = requiredParam(request, "id");
            replicas = ReplicationParams.parse(request.queryParam("replicas").orElse(null), entities.clusterSize());
        } catch (IllegalArgumentException badParameter) {
            return done(Response.text(400, badParameter.getMessage()));
        }
        CompletableFuture<Response> outcome = switch (method) {
            case "PUT" -> entities.put(key, request.body(), replicas).thenApply(ignored -> Response.of(201));
            case "DELETE" -> entities.delete(key, replicas).thenApply(ignored -> Response.of(202));
            default -> entities.get(key, replicas).thenApply(PublicApi::found);
        };
        return outcome.exceptionally(PublicApi::failure);
    }

    private static Response found(Optional<byte[]> value) {
        return value.map(bytes -> Response.of(200, bytes).withHeader("Content-Type", "application/octet-stream"))
                .orElseGet(() -> Response.text(404, "no such key"));
    }

    private CompletionStage<Response> entities(Request request) {
        byte[] start;
        byte[] end;
        boolean local;
        try {
            start = requiredParam(request, "start");
            end = request.queryParamBytes("end").filter(bytes -> bytes.length > 0).map(bytes -> checkedKey("end", bytes)).orElse(null);
            local = request.queryParam("local").map(PublicApi::parseFlag).orElse(false);
        } catch (IllegalArgumentException badParameter) {
            return done(Response.text(400, badParameter.getMessage()));
        }
        return entities.range(start, end, local)
                .thenApply(chunks -> Response.streamed(200, chunks).withHeader("Content-Type", "application/octet-stream"))
                .exceptionally(PublicApi::failure);
    }

    private static CompletionStage<Response> onlyGet(Request request, Supplier<CompletionStage<Response>> action) {
        if (request.method().equals("GET") || request.method().equals("HEAD")) {
            return action.get();
        }
        return done(Response.text(405, request.method() + " is not supported on " + request.path())
                .withHeader("Allow", "GET, HEAD"));
    }

    /** The parameter's exact percent-decoded bytes, a key; absent or empty is a client error. */
    private static byte[] requiredParam(Request request, String name) {
        byte[] value = request.queryParamBytes(name).orElse(new byte[0]);
        if (value.length == 0) {
            throw new IllegalArgumentException("query parameter '" + name + "' is required and must not be empty");
        }
        return checkedKey(name, value);
    }

    /**
     * Keys are at most {@link #KEY_BYTES_MAX} bytes: what the public API accepts must replicate,
     * and a key travels to peers base64-encoded in their request line (8 KiB at most).
     */
    private static byte[] checkedKey(String name, byte[] key) {
        if (key.length > KEY_BYTES_MAX) {
            throw new IllegalArgumentException("query parameter '" + name + "' is " + key.length + " bytes; keys are at most "
                    + KEY_BYTES_MAX + " bytes");
        }
        return key;
    }

    private static boolean parseFlag(String value) {
        return switch (value) {
            case "true", "1", "" -> true;
            case "false", "0" -> false;
            default -> throw new IllegalArgumentException("local must be true or false, got '" + value + "'");
        };
    }

    private static Response failure(Throwable error) {
        Throwable cause = (error instanceof CompletionException && error.getCause() != null) ? error.getCause() : error;
        if (cause instanceof ClockRefusedException || cause instanceof RangeBusyException) {
            return Response.text(503, cause.getMessage());
        }
        if (cause instanceof NotEnoughReplicasException || cause instanceof ReplicaException) {
            return Response.text(504, cause.getMessage());
        }
        if (cause instanceof StoreException) {
            log.error("storage failure", cause);
            return Response.text(500, "storage failure: " + cause.getMessage());
        }
        log.error("request failed", cause);
        return Response.text(500, "internal error");
    }

    private static CompletionStage<Response> done(Response response) {
        return CompletableFuture.completedFuture(response);
    }
}

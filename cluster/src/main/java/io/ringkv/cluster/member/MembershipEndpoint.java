package io.ringkv.cluster.member;

import io.ringkv.cluster.InternalProtocol;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * This node's own membership work on the internal plane (signed, as every internal request):
 * <pre>
 *   POST /internal/v0/membership/decommission  -> 202 progress | 409 refused, with the reason | 503 no majority
 *   GET  /internal/v0/membership/decommission  -> 200 progress (a join's, when this node is joining)
 *   POST /internal/v0/membership/abort         -> 200 progress | 409 nothing to abort | 503 no majority
 * </pre>
 * A POST makes this node {@code leaving} through the metadata group, then answers; the steps after
 * run in the background ({@link Decommission}).
 *
 * <p>Threading: handler threads; the POST's wait for the metadata runs on {@code executor}.
 */
public final class MembershipEndpoint implements HttpHandler {

    private final Decommission decommission;
    private final Supplier<Optional<JoinProcedure>> join;
    private final Supplier<MembershipProgress> progress;
    private final Executor executor;
    private final LongSupplier wallMillis;

    public MembershipEndpoint(Decommission decommission, Supplier<Optional<JoinProcedure>> join,
                              Supplier<MembershipProgress> progress, Executor executor, LongSupplier wallMillis) {
        this.decommission = decommission;
        this.join = join;
        this.progress = progress;
        this.executor = executor;
        this.wallMillis = wallMillis;
    }

    @Override
    public CompletionStage<Response> handle(Request request) {
        if (request.path().equals(InternalProtocol.MEMBERSHIP_ABORT_PATH)) {
            return request.method().equals("POST") ? CompletableFuture.supplyAsync(this::abort, executor)
                    : CompletableFuture.completedFuture(Response.text(405, "use POST").withHeader("Allow", "POST"));
        }
        if (!request.path().equals(InternalProtocol.DECOMMISSION_PATH)) {
            return CompletableFuture.completedFuture(Response.text(404, "no membership request " + request.path()));
        }
        return switch (request.method()) {
            case "GET" -> CompletableFuture.completedFuture(json(200, progress.get()));
            case "POST" -> CompletableFuture.supplyAsync(this::begin, executor);
            default -> CompletableFuture.completedFuture(Response.text(405, "use GET or POST").withHeader("Allow", "GET, POST"));
        };
    }

    private Response begin() {
        try {
            return json(202, decommission.begin());
        } catch (MembershipRefusedException e) {
            // The metadata's own refusal says "refused: " already.
            return Response.text(409, e.getMessage().startsWith("refused: ") ? e.getMessage() : "refused: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            return Response.text(400, e.getMessage());
        } catch (IOException e) {
            return Response.text(503, "the metadata group did not take the step (" + e.getMessage()
                    + "); check that most of its voters run, then ask again");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Response.text(503, "this node is stopping");
        }
    }

    /** Rolls back this node's decommission, or else its join; 409 when neither runs. */
    private Response abort() {
        try {
            if (decommission.running() || decommission.progress().step().equals("decommission")
                    && !decommission.progress().phase().equals("left") && !decommission.progress().phase().equals("aborted")) {
                return json(200, decommission.abort());
            }
            Optional<JoinProcedure> joining = join.get().filter(running -> !running.done());
            if (joining.isPresent()) {
                return json(200, joining.get().abort());
            }
            return Response.text(409, "this node runs no join or decommission to abort");
        } catch (MembershipRefusedException e) {
            return Response.text(409, "refused: " + e.getMessage());
        } catch (IOException e) {
            return Response.text(503, "the metadata group did not take the step (" + e.getMessage()
                    + "); check that most of its voters run, then ask again");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Response.text(503, "this node is stopping");
        }
    }

    private Response json(int status, MembershipProgress progress) {
        return Response.of(status, progress.toJson(wallMillis.getAsLong()).getBytes(StandardCharsets.UTF_8))
                .withHeader("Content-Type", "application/json");
    }
}

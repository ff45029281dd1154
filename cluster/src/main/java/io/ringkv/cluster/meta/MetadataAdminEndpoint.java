package io.ringkv.cluster.meta;

import io.ringkv.cluster.InternalProtocol;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Metadata changes an operator asks a node for ({@code ringkv meta ...}), on the internal plane so
 * that they need the cluster secret: {@code POST /internal/v0/meta/replication-factor} with the
 * factor as decimal text. Answers {@code 200} with {@code {"epoch":E,"replicationFactor":N}} once
 * the change is applied, {@code 409} with the reason when the metadata refuses it (more than the
 * members), {@code 400} for a body that is not a number, {@code 503} when no majority of the
 * metadata's voters answered within the client's retries (the change may still apply later).
 *
 * <p>Threading: handler threads; the answer completes when the Raft client's future does.
 */
public final class MetadataAdminEndpoint implements HttpHandler {

    private final MetadataGroup group;

    public MetadataAdminEndpoint(MetadataGroup group) {
        this.group = group;
    }

    @Override
    public CompletionStage<Response> handle(Request request) {
        if (!request.path().equals(InternalProtocol.META_REPLICATION_FACTOR_PATH)) {
            return CompletableFuture.completedFuture(Response.text(404, "no metadata request " + request.path()));
        }
        if (!request.method().equals("POST")) {
            return CompletableFuture.completedFuture(Response.text(405, "use POST").withHeader("Allow", "POST"));
        }
        int factor;
        try {
            factor = Integer.parseInt(new String(request.body(), StandardCharsets.US_ASCII).strip());
        } catch (NumberFormatException e) {
            return CompletableFuture.completedFuture(Response.text(400, "the body must be the replication factor, a decimal number"));
        }
        return group.submit(new MetadataCommand.SetReplicationFactor(factor)).handle((outcome, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                return Response.text(503, "no majority of the metadata voters took the change (" + cause
                        + "); it waits for them: check that most of them run, then ask again");
            }
            if (!outcome.applied()) {
                return Response.text(409, "refused: " + outcome.reason());
            }
            return Response.of(200, ("{\"epoch\":" + outcome.epoch() + ",\"replicationFactor\":" + factor + "}")
                    .getBytes(StandardCharsets.UTF_8)).withHeader("Content-Type", "application/json");
        });
    }
}

package io.ringkv.http.client.internal;

import io.ringkv.http.LogText;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The push promises of one {@code sendAsync} call that came with a {@link PushPromiseHandler}:
 * each promise is offered to the handler on the client executor; an accepted one has its pushed
 * response read with the handler's {@link BodyHandler} and delivered to the future the acceptor
 * returned; a declined one (or one whose handler threw) has its stream cancelled (RST_STREAM
 * CANCEL), as the JDK client does.
 *
 * <p>Threading: {@link #offer} is called from an event loop and hops at once to the executor;
 * everything that runs user code (the handler, body handlers and subscribers, dependents of the
 * pushed futures) runs there.
 */
final class PushPromises<T> {
    private static final Logger log = LoggerFactory.getLogger(PushPromises.class);

    private final PushPromiseHandler<T> handler;
    private final HttpRequest initiating;
    private final Executor executor;

    PushPromises(PushPromiseHandler<T> handler, HttpRequest initiating, Executor executor) {
        this.handler = handler;
        this.initiating = initiating;
        this.executor = executor;
    }

    /**
     * Event loop: the server promised {@code request} on a stream of this call; {@code pushed} is
     * the exchange already receiving its response. {@code decided} runs once the handler returned.
     */
    void offer(HttpRequest request, H2PushedExchange pushed, Runnable decided) {
        Hops.run(executor, () -> {
            try {
                decide(request, pushed);
            } finally {
                decided.run();
            }
        });
    }

    /** Executor: asks the handler; reads the pushed response if it accepted, else cancels the stream. */
    private void decide(HttpRequest request, H2PushedExchange pushed) {
        if (pushed.isFailed()) {
            return; // the initiating exchange was aborted or the connection closed before the handler could be asked
        }
        Acceptor acceptor = new Acceptor();
        try {
            handler.applyPushPromise(initiating, request, acceptor::accept);
        } catch (RuntimeException | Error e) {
            // As the JDK: a handler that throws declines the promise; an accepted future learns why.
            log.debug("push promise handler threw for {}", LogText.of(request), e);
            CompletableFuture<HttpResponse<T>> accepted = acceptor.close();
            if (accepted != null) {
                accepted.completeExceptionally(e);
            }
            pushed.abort(new IOException("push promise handler failed for " + request, e));
            return;
        }
        CompletableFuture<HttpResponse<T>> accepted = acceptor.close();
        if (accepted == null) {
            pushed.abort(new IOException("push promise for " + request + " not accepted"));
            return;
        }
        accepted.whenComplete((response, error) -> {
            if (error instanceof CancellationException cancelled) {
                pushed.abort(cancelled); // the application gave up on the pushed response
            }
        });
        BodyHandler<T> bodyHandler = acceptor.bodyHandler;
        pushed.responseHead().whenComplete((head, error) -> Hops.run(executor, () -> {
            if (error != null) {
                accepted.completeExceptionally(Failures.unwrap(error));
            } else {
                readBody(request, pushed, head, bodyHandler, accepted);
            }
        }));
    }

    /** Executor: the pushed response's head is here; the handler's subscriber takes the body. */
    private void readBody(HttpRequest request, H2PushedExchange pushed, ResponseHead head, BodyHandler<T> bodyHandler,
            CompletableFuture<HttpResponse<T>> accepted) {
        BodySubscriber<T> subscriber;
        try {
            subscriber = bodyHandler.apply(new ResponseInfoImpl(head));
        } catch (RuntimeException e) {
            pushed.abort(e);
            accepted.completeExceptionally(e);
            return;
        }
        pushed.deliverBody(subscriber);
        Interim interim = new Interim(ExchangeRequest.of(request, HttpClient.Version.HTTP_2), head, pushed, null);
        subscriber.getBody().whenComplete((body, error) -> {
            if (error != null) {
                accepted.completeExceptionally(Failures.unwrap(error));
            } else {
                accepted.complete(ResponseImpl.of(interim, body));
            }
        });
    }

    /**
     * The function handed to {@code applyPushPromise}: usable once, and only until the handler
     * returns (after that the promised stream is already cancelled).
     */
    private final class Acceptor {
        private BodyHandler<T> bodyHandler;
        private CompletableFuture<HttpResponse<T>> future;
        private boolean closed;

        synchronized CompletableFuture<HttpResponse<T>> accept(BodyHandler<T> handler) {
            Objects.requireNonNull(handler, "bodyHandler");
            if (closed) {
                throw new IllegalStateException("the push promise was already declined: accept it before"
                        + " applyPushPromise returns");
            }
            if (future != null) {
                throw new IllegalStateException("the push promise was already accepted");
            }
            bodyHandler = handler;
            future = new CompletableFuture<>();
            return future;
        }

        /** The handler returned: the future of an accepted promise, or {@code null}. */
        synchronized CompletableFuture<HttpResponse<T>> close() {
            closed = true;
            return future;
        }
    }
}

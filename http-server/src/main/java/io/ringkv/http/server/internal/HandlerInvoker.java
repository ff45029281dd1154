package io.ringkv.http.server.internal;

import io.ringkv.http.LogText;
import io.ringkv.http.server.ExchangeListener;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ResponseBody;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls the application handler and turns whatever it does into a response: a thrown exception
 * or an exceptional stage becomes 500 and a log line, so user code cannot break the connection.
 *
 * <p>Threading: {@link #invoke} runs on the handler executor, or on the event loop for a request
 * the handler asked to run there ({@link io.ringkv.http.server.HeadAdmission#onLoop}); the
 * response is encoded and queued on whichever thread completes the handler's stage, with no extra
 * hop.
 */
final class HandlerInvoker {
    private static final Logger log = LoggerFactory.getLogger(HandlerInvoker.class);

    private final HttpHandler handler;
    private final ExchangeListener listener;

    HandlerInvoker(HttpHandler handler, ExchangeListener listener) {
        this.handler = handler;
        this.listener = listener;
    }

    /** @param dispatchedNanos {@link System#nanoTime()} when the request was handed to the executor */
    void invoke(Exchange exchange, Request request, ResponseSequencer sequencer, long dispatchedNanos) {
        CompletionStage<Response> stage;
        try {
            stage = handler.handle(request);
            if (stage == null) {
                throw new NullPointerException("handler returned a null stage");
            }
        } catch (Throwable e) {
            failed(exchange, request, sequencer, e);
            told(request, 500, dispatchedNanos);
            rethrowFatal(e);
            return;
        }
        stage.whenComplete((response, failure) -> {
            int status = failure != null ? failed(exchange, request, sequencer, unwrap(failure))
                    : completed(exchange, request, sequencer, response);
            told(request, status, dispatchedNanos);
        });
    }

    /**
     * For HTTP/2 streams: calls the handler and hands {@code respond} exactly one response, a 500
     * when the handler throws or fails. Runs on the handler executor.
     */
    void invoke(Request request, Consumer<Response> respond, long dispatchedNanos) {
        CompletionStage<Response> stage;
        try {
            stage = handler.handle(request);
            if (stage == null) {
                throw new NullPointerException("handler returned a null stage");
            }
        } catch (Throwable e) {
            log.error("handler failed for {} {} from {}", LogText.of(request.method()), LogText.of(request.path()), request.remote(), e);
            respond.accept(Response.text(500, "internal server error"));
            told(request, 500, dispatchedNanos);
            rethrowFatal(e);
            return;
        }
        stage.whenComplete((response, failure) -> {
            if (failure == null && response != null && response.status() >= 200 && response.status() <= 599) {
                respond.accept(response);
                told(request, response.status(), dispatchedNanos);
                return;
            }
            Throwable cause = failure != null ? unwrap(failure)
                    : new IllegalArgumentException("handler completed with " + (response == null ? "a null response"
                            : "status " + response.status()));
            if (response != null && response.body() instanceof ResponseBody.Streamed streamed) {
                ResponseEncoder.closeQuietly(streamed.source());
            }
            log.error("handler failed for {} {} from {}", LogText.of(request.method()), LogText.of(request.path()), request.remote(), cause);
            respond.accept(Response.text(500, "internal server error"));
            told(request, 500, dispatchedNanos);
        });
    }

    /** After the response was handed over, so the listener is never on the response's path. */
    private void told(Request request, int status, long dispatchedNanos) {
        try {
            listener.onResponse(request, status, System.nanoTime() - dispatchedNanos);
        } catch (RuntimeException e) {
            log.warn("exchange listener failed for {} {}", LogText.of(request.method()), LogText.of(request.path()), e);
        }
    }

    /** @return the status sent */
    private static int completed(Exchange exchange, Request request, ResponseSequencer sequencer, Response response) {
        EncodedResponse encoded;
        try {
            if (response == null) {
                throw new NullPointerException("handler completed with a null response");
            }
            encoded = ResponseEncoder.encode(response, exchange, false);
        } catch (RuntimeException e) {
            if (response != null && response.body() instanceof ResponseBody.Streamed streamed) {
                ResponseEncoder.closeQuietly(streamed.source());
            }
            return failed(exchange, request, sequencer, e);
        }
        sequencer.respond(exchange, encoded);
        return response.status();
    }

    /** @return the status sent, 500 */
    private static int failed(Exchange exchange, Request request, ResponseSequencer sequencer, Throwable cause) {
        log.error("handler failed for {} {} from {}", LogText.of(request.method()), LogText.of(request.path()), request.remote(), cause);
        sequencer.respond(exchange, ResponseEncoder.error(500, "internal server error", exchange, false));
        return 500;
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    private static void rethrowFatal(Throwable e) {
        if (e instanceof VirtualMachineError fatal) {
            throw fatal;
        }
    }
}

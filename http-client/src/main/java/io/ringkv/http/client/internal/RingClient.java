package io.ringkv.http.client.internal;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * ringkv's {@link HttpClient}. Each call runs the chain redirect → auth → cookies → network; the
 * response body is read by the application's {@link BodySubscriber} on the client executor.
 *
 * <p>Threading: thread-safe. Returned futures complete on the client executor (or at once, when
 * the answer is already known), never on an event loop; a synchronous {@code send} does its
 * call's work on the calling thread instead ({@link CallerThreadExecutor}).
 *
 * <p>HTTP/2 server push (RFC 9113 §8.4) is enabled by default, as in the JDK client
 * ({@code RingHttpClient.Builder.http2ServerPush(false)} sends SETTINGS_ENABLE_PUSH 0 instead).
 * Each PUSH_PROMISE on a request sent with a {@link PushPromiseHandler} is offered to
 * {@link PushPromiseHandler#applyPushPromise} on the client executor, with the initiating request
 * (the one passed to {@code sendAsync}) and the promised request (method, URI from
 * {@code :scheme}, {@code :authority} and {@code :path}, headers). An accepted push is read with
 * the body handler given to the acceptor, under the same flow control as any response, and
 * completes the future the acceptor returned. Declined promises are cancelled (RST_STREAM
 * CANCEL); promises on a request without a handler are refused (REFUSED_STREAM). The future of a
 * request completes only after its handler was called for every promise that preceded the end
 * of its response. Cancelling a request cancels the pushes it started (their futures fail with
 * an {@link IOException}), and so does the loss of the connection.
 */
public final class RingClient extends HttpClient {
    /** The JDK's {@code BodyHandlers.ofByteArray()}, recognised by identity (see {@link #subscriberFor}). */
    private static final BodyHandler<byte[]> JDK_BYTE_ARRAY_HANDLER = HttpResponse.BodyHandlers.ofByteArray();

    private final ClientConfig config;
    private final Executor executor;
    private final ExecutorService ownedExecutor;
    private final Transport transport;
    private final List<Link> links;
    private final ClientLifecycle lifecycle;
    private final SpinPolicy syncSendSpin;

    RingClient(ClientConfig config) {
        this.config = config;
        this.ownedExecutor = config.executor() == null ? ClientExecutors.newDefault() : null;
        this.executor = config.executor() != null ? config.executor() : ownedExecutor;
        this.transport = NetTransport.open(config, executor);
        this.links = links(config, transport.codec());
        this.lifecycle = new ClientLifecycle(this::releaseResources);
        this.syncSendSpin = SpinPolicy.forThisMachine(config.extensions().syncSendSpin());
    }

    /** What the client holds open now; for {@code RingHttpClient.stats}. */
    public io.ringkv.http.client.ClientStats stats() {
        return transport.stats();
    }

    /** Routes the client's network keeps state for (see {@link Transport#routesHeld}). */
    int routesHeld() {
        return transport.routesHeld();
    }

    private static List<Link> links(ClientConfig config, ExchangeCodec codec) {
        List<Link> links = new ArrayList<>(4);
        if (config.redirect() != Redirect.NEVER) {
            links.add(new RedirectLink(config.redirect()));
        }
        if (config.authenticator() != null) {
            links.add(new AuthLink(config.authenticator(), config.proxySelector()));
        }
        if (config.cookieHandler() != null) {
            links.add(new CookieLink(config.cookieHandler()));
        }
        links.add(new NetworkLink(codec, config.proxySelector()));
        return List.copyOf(links);
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, BodyHandler<T> handler)
            throws IOException, InterruptedException {
        // The caller waits anyway: it does the call's work itself (see CallerThreadExecutor).
        CallerThreadExecutor callerExecutor = new CallerThreadExecutor(executor, syncSendSpin);
        CompletableFuture<HttpResponse<T>> future = start(request, handler, callerExecutor, null);
        try {
            return callerExecutor.await(future);
        } catch (InterruptedException e) {
            future.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            throw SendFailures.rethrow(e.getCause());
        }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
        return sendAsync(request, handler, null);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler,
            PushPromiseHandler<T> pushPromiseHandler) {
        return start(request, handler, executor,
                pushPromiseHandler == null ? null : new PushPromises<>(pushPromiseHandler, request, executor));
    }

    /**
     * @param callExecutor where this call's continuations and body signals run
     * @param pushes       what to do with HTTP/2 push promises; {@code null} refuses them
     */
    private <T> CompletableFuture<HttpResponse<T>> start(HttpRequest request, BodyHandler<T> handler,
            Executor callExecutor, PushPromises<T> pushes) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(handler, "responseBodyHandler");
        SchemeGuard.checkSupported(request.uri());
        Call<T> call = new Call<>(callExecutor, pushes);
        try {
            lifecycle.admit(call);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        request.timeout().ifPresent(timeout -> call.armTimeout(transport.scheduler(), timeout));
        ExchangeRequest first = ExchangeRequest.of(request, config.version(), handler == JDK_BYTE_ARRAY_HANDLER);
        CompletableFuture<Interim> head;
        try {
            head = new Chain(links, call).proceed(first);
        } catch (RuntimeException e) {
            call.fail(e);
            return call.result();
        }
        ListenedFuture.whenDone(head, (interim, error) -> {
            if (error != null) {
                call.failHere(error);
            } else {
                readBody(call, interim, handler);
            }
        });
        return call.result();
    }

    /**
     * The subscriber for the response of {@code interim}: the handler's, except for the JDK's own
     * {@code BodyHandlers.ofByteArray()}, whose result ours builds as the body arrives (see
     * {@link ByteArrayBody}): the one the exchange has been filling since the head arrived, else a
     * new one. That factory returns one shared instance (a lambda that captures nothing), so the
     * identity test is exact; a JDK where it did not would only miss the fast path.
     */
    @SuppressWarnings("unchecked")
    static <T> BodySubscriber<T> subscriberFor(BodyHandler<T> handler, Interim interim) {
        if (handler == JDK_BYTE_ARRAY_HANDLER) {
            ByteArrayBody filling = interim.exchange().arrayBody();
            return (BodySubscriber<T>) (filling != null ? filling : ByteArrayBody.forHead(interim.head()));
        }
        BodySubscriber<T> subscriber = handler.apply(new ResponseInfoImpl(interim.head()));
        if (subscriber == null) {
            // A programming error the JDK's client fails the call with (an NPE) too; unchecked,
            // the body would never be read and the call would never end.
            throw new NullPointerException("the body handler " + handler + " returned no BodySubscriber");
        }
        return subscriber;
    }

    /** Executor thread: the final head is here; the application's subscriber takes the body. */
    private static <T> void readBody(Call<T> call, Interim interim, BodyHandler<T> handler) {
        call.disarmTimeout();
        if (interim.exchange() instanceof ProxyRefusal) {
            // As the JDK: a 407 answer to CONNECT has no body to read; body() is null and the
            // handler is never asked for a subscriber.
            call.succeed(ResponseImpl.of(interim, null));
            return;
        }
        BodySubscriber<T> subscriber;
        try {
            subscriber = subscriberFor(handler, interim);
        } catch (RuntimeException e) {
            interim.exchange().abort(e);
            call.failHere(e);
            return;
        }
        interim.exchange().deliverBody(subscriber);
        ListenedFuture.whenDone(subscriber.getBody(), (body, error) -> {
            if (error != null) {
                call.failHere(error);
            } else {
                call.succeed(ResponseImpl.of(interim, body));
            }
        });
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
        return Optional.ofNullable(config.cookieHandler());
    }

    @Override
    public Optional<Duration> connectTimeout() {
        return Optional.ofNullable(config.connectTimeout());
    }

    @Override
    public Redirect followRedirects() {
        return config.redirect();
    }

    @Override
    public Optional<ProxySelector> proxy() {
        return Optional.ofNullable(config.proxySelector());
    }

    @Override
    public SSLContext sslContext() {
        return config.sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
        return config.sslParameters() != null ? config.sslParameters() : config.sslContext().getDefaultSSLParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
        return Optional.ofNullable(config.authenticator());
    }

    @Override
    public Version version() {
        return config.version();
    }

    @Override
    public Optional<Executor> executor() {
        return Optional.ofNullable(config.executor());
    }

    @Override
    public void shutdown() {
        lifecycle.shutdown();
    }

    @Override
    public void shutdownNow() {
        lifecycle.shutdownNow(new IOException("HttpClient is shutting down"));
    }

    @Override
    public boolean awaitTermination(Duration duration) throws InterruptedException {
        Objects.requireNonNull(duration, "duration");
        try {
            lifecycle.terminated().get(Math.max(0, duration.toNanos()), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        }
    }

    @Override
    public boolean isTerminated() {
        return lifecycle.isTerminated();
    }

    @Override
    public void close() {
        shutdown();
        boolean interrupted = false;
        while (!isTerminated()) {
            try {
                awaitTermination(Duration.ofDays(1));
            } catch (InterruptedException e) {
                interrupted = true;
                shutdownNow();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void releaseResources() {
        transport.close();
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
    }

    @Override
    public String toString() {
        return "RingClient@" + Integer.toHexString(System.identityHashCode(this))
                + (isTerminated() ? "(terminated)" : "");
    }
}

package io.ringkv.http.client.internal;

import io.ringkv.http.h1.RequestWriter;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One HTTP/1.1 request/response on an {@link H1Connection}. With an {@link H2cUpgrade} the request
 * offers {@code Upgrade: h2c}; if the server switches, the response arrives over HTTP/2 on
 * stream 1 and this exchange hands its head, body and abort to that stream's {@link H2Exchange}.
 *
 * <p>Threading: the {@code on*} response events come from the connection's event loop; the
 * {@link Exchange} methods from any thread; request body signals from the publisher's threads.
 * The exchange is finished (and the connection may carry the next one) once the request was
 * written and the response read completely: both flags are set once, the second setter finishes.
 */
final class H1Exchange implements Exchange, BodyPipe.Producer, RequestBodyWriter.Listener {
    private final ExchangeRequest request;
    private final Route route;
    private final H1Connection connection;
    private final CompletableFuture<ResponseHead> head = new ListenedFuture<>();
    private final BodyPipe body;
    private final Executor executor;
    private final AtomicBoolean bodyStarted = new AtomicBoolean();
    /** The request written and the response read: whichever ends last hands the connection back. */
    private final TwoPartCompletion completion = new TwoPartCompletion();
    private volatile RequestBodyWriter bodyWriter;
    private volatile boolean reusable = true;
    /** Set on the loop before the request goes out / when the first response byte arrives. */
    private volatile boolean reusedConnection;
    private volatile boolean responseStarted;
    private volatile boolean aborted;
    /** The final head, parsed and not yet published; loop-confined. */
    private ResponseHead pendingHead;
    private volatile Throwable abortCause;
    /** The upgrade this request offers, or {@code null} for a plain HTTP/1.1 request. */
    private final H2cUpgrade upgrade;
    /** After a 101: the exchange on stream 1 of the switched connection, which carries the response. */
    private volatile H2Exchange switched;

    H1Exchange(ExchangeRequest request, Route route, H1Connection connection, Executor executor) {
        this(request, route, connection, executor, null);
    }

    /** @param upgrade offers {@code Upgrade: h2c} with this request (RFC 7540 §3.2); {@code null} for none */
    H1Exchange(ExchangeRequest request, Route route, H1Connection connection, Executor executor, H2cUpgrade upgrade) {
        this.request = request;
        this.route = route;
        this.connection = connection;
        this.executor = executor;
        this.upgrade = upgrade;
        this.body = new BodyPipe(executor, this);
    }

    String method() {
        return request.method();
    }

    /** Event loop, right after the parser was told the method: writes the head, then maybe the body. */
    void sendRequest() {
        io.ringkv.http.Headers fields = RequestHeadBuilder.fields(request, route, connection.requestFields());
        if (upgrade != null) {
            upgrade.addFields(fields);
        }
        ByteBuffer headBytes;
        try {
            headBytes = RequestWriter.head(request.method(), RequestHeadBuilder.target(request, route), fields);
        } finally {
            fields.clear(); // an idle connection keeps no request's values (credentials among them)
        }
        if (request.body() == null || request.expectContinue()) {
            connection.connection().write(headBytes);
        } else {
            // The body writer flushes the head with the first body bytes (at the latest when it
            // subscribes): one socket write, one TLS record, instead of two.
            connection.connection().enqueue(headBytes);
        }
        if (request.body() == null) {
            bodyWritten();
        } else if (!request.expectContinue()) {
            startBody();
        }
    }

    /** Event loop: RFC 9110 §15.2.1, 100 Continue releases a body held back by Expect. */
    void onContinue() {
        if (request.body() != null && request.expectContinue()) {
            startBody();
        }
    }

    /** Whether a 101 answer to this request switches the connection to HTTP/2. */
    boolean offersUpgrade() {
        return upgrade != null;
    }

    /**
     * Event loop, on {@code 101 Switching Protocols} to our {@code Upgrade: h2c}: the connection is
     * HTTP/2 from the next byte on; the response comes on stream 1 and completes this exchange's
     * head. Returns the handler that takes the connection over.
     */
    io.ringkv.net.ConnectionHandler switchProtocols(io.ringkv.net.Connection socket) {
        H2cUpgrade.Switched result = upgrade.switchProtocols(socket, request, executor);
        H2Exchange stream = result.exchange();
        switched = stream;
        stream.responseHead().whenComplete((response, error) -> {
            if (error != null) {
                head.completeExceptionally(error);
            } else {
                head.complete(response);
            }
        });
        if (aborted) {
            stream.abort(abortCause); // the abort raced the switch; it may have missed the stream
        }
        return result.connection();
    }

    void onHead(io.ringkv.http.h1.ResponseHead parsed) {
        if (upgrade != null) {
            upgrade.declined(); // RFC 7540 §3.2: a final status other than 101 means HTTP/1.1 stays
        }
        reusable = parsed.keepAlive();
        if (request.expectContinue() && !bodyStarted.get()) {
            // RFC 9110 §10.1.1: a final status instead of 100 means the body is not wanted; the
            // server may still expect it, so the connection cannot carry another exchange.
            bodyStarted.set(true);
            reusable = false;
            bodyWritten();
        }
        pendingHead = new ResponseHead(parsed.status(), parsed.headers(), HttpClient.Version.HTTP_1_1);
        if (request.bodyToArray()) {
            body.copyFromNowOn(ByteArrayBody.forHead(pendingHead));
        }
    }

    /**
     * Event loop, once the read that carried the head was parsed: completes the head future. Not
     * on arrival, so that the thread it wakes finds the rest of a small response already queued
     * (see H2Exchange#publishHead).
     */
    void publishHead() {
        ResponseHead ready = pendingHead;
        if (ready != null) {
            pendingHead = null;
            head.complete(ready);
        }
    }

    /** Event loop: {@code slice} aliases what the connection read (see {@link BodyPipe#offerRead}). */
    void onBody(ByteBuffer slice) {
        body.offerRead(slice, connection.connection());
        if (!body.wantsMore()) {
            connection.connection().suspendReads();
        }
    }

    void onEnd() {
        // Release the connection before the body completes: every byte is already in the body
        // pipe, and a caller that sends its next request as soon as this body is read must find
        // the connection back in the pool, not race its release and open a new one.
        if (completion.secondDone()) {
            connection.finished(this, reusable);
        }
        body.complete();
    }

    /** Event loop: the connection carried an exchange before this one. */
    void onReusedConnection() {
        reusedConnection = true;
    }

    /** Event loop: a response byte arrived; from now on a failure is not a stale connection. */
    void onResponseBytes() {
        responseStarted = true;
    }

    /** Event loop (or aborting thread): the connection broke or was aborted. */
    void onFailure(Throwable cause) {
        if (upgrade != null) {
            upgrade.failed();
        }
        IOException error = cause instanceof IOException io ? io : new IOException(cause.getMessage(), cause);
        Throwable reported = cause instanceof IOException || cause instanceof RuntimeException ? cause : error;
        // A reused connection that fails before any response byte was most likely closed by the
        // server while idle; the network link decides whether the request may go again.
        boolean stale = reusedConnection && !responseStarted && !aborted;
        head.completeExceptionally(stale ? new StaleConnectionException(reported) : reported);
        body.fail(reported);
    }

    void onWritable() {
        RequestBodyWriter writer = bodyWriter;
        if (writer != null) {
            writer.onWritable();
        }
    }

    @Override
    public CompletableFuture<ResponseHead> responseHead() {
        return head;
    }

    @Override
    public void deliverBody(Flow.Subscriber<List<ByteBuffer>> subscriber) {
        H2Exchange stream = switched;
        if (stream != null) {
            stream.deliverBody(subscriber);
        } else {
            body.subscribe(subscriber);
        }
    }

    @Override
    public ByteArrayBody arrayBody() {
        H2Exchange stream = switched;
        return stream != null ? stream.arrayBody() : body.arrayBody();
    }

    @Override
    public void discardBody() {
        H2Exchange stream = switched;
        if (stream != null) {
            stream.discardBody();
        } else {
            body.subscribe(new DiscardingSubscriber());
        }
    }

    @Override
    public java.util.Optional<javax.net.ssl.SSLSession> sslSession() {
        return connection.connection() instanceof io.ringkv.net.tls.TlsConnection tls
                ? java.util.Optional.of(tls.session()) : java.util.Optional.empty();
    }

    @Override
    public void abort(Throwable cause) {
        abortCause = cause;
        aborted = true;
        H2Exchange stream = switched;
        if (stream != null) {
            stream.abort(cause); // only the stream: the switched connection serves other requests
            return;
        }
        connection.abort(this, cause);
    }

    @Override
    public void resume() {
        connection.connection().resumeReads();
    }

    @Override
    public void cancel() {
        abort(new IOException("response body cancelled by its subscriber"));
    }

    @Override
    public void bodyWritten() {
        if (completion.firstDone()) {
            connection.finished(this, reusable);
        }
    }

    @Override
    public void bodyFailed(IOException cause) {
        abort(cause);
    }

    private void startBody() {
        if (bodyStarted.compareAndSet(false, true)) {
            RequestBodyWriter writer = new RequestBodyWriter(connection.connection(), request.contentLength(),
                    this, executor);
            bodyWriter = writer;
            // The publisher is application code: it never runs on the event loop.
            Hops.run(executor, () -> request.body().subscribe(writer));
        }
    }
}

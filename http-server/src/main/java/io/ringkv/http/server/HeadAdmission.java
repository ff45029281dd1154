package io.ringkv.http.server;

import io.ringkv.http.Headers;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * An optional second face of an {@link HttpHandler}: a look at each request's head (request line
 * and header fields) before any byte of its body is read or buffered. A handler that also
 * implements this can refuse, at its headers, a request whose headers alone decide it (no
 * credentials, a stale proof, a body longer than the route takes), so that a stranger's body
 * never costs the server memory from its body budget. Requests it lets through are read whole and
 * given to {@link HttpHandler#handle} as before, which must still make every check (including
 * those it made here: this is an early answer, not a replacement).
 *
 * <p>An early answer on HTTP/1.1 closes the connection when a body was announced (it is not
 * read; RFC 9112 §9.6), and on HTTP/2 ends the stream's body with RST_STREAM(NO_ERROR) after the
 * answer (RFC 9113 §8.1).
 *
 * <p>Threading: called on an event loop, once per request, as soon as its head is parsed. It must
 * be cheap and must never block: no I/O, no locks held by other threads' slow work, no waiting on
 * a future. An exception thrown from it is logged and the request answered {@code 500}.
 */
@FunctionalInterface
public interface HeadAdmission {

    /**
     * @return empty to read the body and call the handler; otherwise the answer to send at once,
     *         with a fixed or empty body (a streamed one is a bug, answered 500)
     */
    Optional<Response> admit(Head head);

    /**
     * As {@link #admit}, with a note for the handler when the request is let through: the server
     * gives it to {@link HttpHandler#handle} as {@link Request#admissionNote()} of this very
     * request, so a decision made here (e.g. a credential looked up) need not be made twice. Only
     * the server carries it from here to there; a client cannot set it. Same threading rules as
     * {@link #admit}. By default: {@link #admit}'s answer, no note.
     */
    default Verdict verdict(Head head) {
        Optional<Response> answer = admit(head);
        return answer != null && answer.isPresent() ? Verdict.answer(answer.get()) : Verdict.PASS;
    }

    /**
     * What {@link #verdict} decided.
     *
     * @param answer the answer to send at once, or null to read the body and call the handler
     * @param note   for the handler when {@code answer} is null: {@link Request#admissionNote()}; may be null
     */
    record Verdict(Response answer, Object note) {
        /** Let through, no note. */
        public static final Verdict PASS = new Verdict(null, null);

        public static Verdict answer(Response answer) {
            return new Verdict(java.util.Objects.requireNonNull(answer, "answer"), null);
        }

        public static Verdict pass(Object note) {
            return new Verdict(null, note);
        }
    }

    /**
     * The most body bytes a request that {@link #admit} let through may send, enforced while its
     * body is read: past it the request is answered {@code 413} and the rest is not read (HTTP/1.1:
     * the connection closes after the answer; HTTP/2: RST_STREAM after it). This is what bounds a
     * body whose length the head does not announce (chunked on HTTP/1.1, DATA without
     * {@code content-length} on HTTP/2), which {@link #admit} cannot judge. The server's own body
     * limit applies as well; the smaller wins. Same threading rules as {@link #admit}.
     *
     * @return a byte count, {@link Long#MAX_VALUE} (the default) for only the server's limit
     */
    default long bodyBytesMax(Head head) {
        return Long.MAX_VALUE;
    }

    /**
     * Whether a request that {@link #admit} let through may take one of the in-flight slots the
     * server keeps in reserve ({@link ServerConfig#inFlightReserve()}): work that another server
     * admitted already, such as a peer's replica call, which a {@code 503} here would turn into a
     * failure there after its cost was paid. Same threading rules as {@link #admit}.
     *
     * @return false (the default) for an ordinary request
     */
    default boolean priority(Head head) {
        return false;
    }

    /**
     * Whether a request that {@link #admit} let through is handled on the event loop that read it
     * rather than on the handler executor. Say yes only for requests whose
     * {@link HttpHandler#handle} never blocks: it does its work from memory and hands whatever
     * might wait (disk I/O, a lock another thread holds) to an executor of its own, returning a
     * stage that completes there. Such a request then costs no hand-over between threads: at
     * moderate rates, where every hand-over wakes a sleeping thread, that is a large share of a
     * small request's CPU. Same threading rules as {@link #admit}.
     *
     * @return false (the default): the handler runs on the executor
     */
    default boolean onLoop(Head head) {
        return false;
    }

    /**
     * A request as known at its head.
     *
     * @param method        the method token as sent
     * @param path          the path part of the request target, percent-encoding kept
     * @param query         the raw query string, {@code ""} when there is none
     * @param headers       the request's header fields
     * @param contentLength the declared body length: 0 when there is none, -1 when it is not
     *                      known yet (chunked on HTTP/1.1, or no {@code content-length} on HTTP/2)
     * @param remote        the peer address
     * @param protocol      the HTTP version it arrives over
     * @param peerCertificates the client's verified certificate chain, as {@link Request#peerCertificates()}
     */
    record Head(String method, String path, String query, Headers headers, long contentLength,
                InetSocketAddress remote, Protocol protocol, List<X509Certificate> peerCertificates) {

        public Head {
            peerCertificates = List.copyOf(peerCertificates);
        }

        /** A head from a peer that presented no certificate. */
        public Head(String method, String path, String query, Headers headers, long contentLength,
                    InetSocketAddress remote, Protocol protocol) {
            this(method, path, query, headers, contentLength, remote, protocol, List.of());
        }

        /** This head as a {@link Request} without a body, for checks written against requests that read no body. */
        public Request withoutBody() {
            return new Request(method, path, query, headers, new byte[0], remote, protocol, peerCertificates, null);
        }
    }
}

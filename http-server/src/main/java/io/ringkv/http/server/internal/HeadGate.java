package io.ringkv.http.server.internal;

import io.ringkv.http.Headers;
import io.ringkv.http.LogText;
import io.ringkv.http.server.HeadAdmission;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ResponseBody;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the handler's {@link HeadAdmission}, when it has one, whether a request whose head just
 * arrived is answered now, before its body is read, and if not, how many body bytes it may send.
 * A hook that throws costs the request a 500, never the connection or the loop.
 *
 * <p>Threading: thread-safe; called on event loops.
 */
final class HeadGate {
    private static final Logger log = LoggerFactory.getLogger(HeadGate.class);

    /** Null when the handler does not look at heads. */
    private final HeadAdmission admission;
    private final LongAdder refused = new LongAdder();

    HeadGate(HttpHandler handler) {
        this.admission = handler instanceof HeadAdmission head ? head : null;
    }

    /**
     * What the head decided.
     *
     * @param early        the answer to send at once, or null to read the body and run the handler
     * @param note         when {@code early} is null: the admission's note for the handler
     *                     ({@link io.ringkv.http.server.Request#admissionNote()}); may be null
     * @param bodyBytesMax when {@code early} is null: the most body bytes the request may send
     *                     ({@link Long#MAX_VALUE}: the server's limit alone)
     * @param priority     when {@code early} is null: the request may take the in-flight reserve
     *                     ({@link HeadAdmission#priority})
     * @param onLoop       when {@code early} is null: the handler runs on the event loop
     *                     ({@link HeadAdmission#onLoop})
     */
    record Decision(Response early, Object note, long bodyBytesMax, boolean priority, boolean onLoop) {
        static final Decision READ_BODY = new Decision(null, null, Long.MAX_VALUE, false, false);
    }

    /**
     * @param target the request-target as sent
     */
    Decision admit(String method, String target, Headers headers, long contentLength, InetSocketAddress remote,
                   Protocol protocol, List<X509Certificate> peerCertificates) {
        if (admission == null) {
            return Decision.READ_BODY;
        }
        String[] pathAndQuery = RequestTarget.split(target);
        HeadAdmission.Head head = new HeadAdmission.Head(method, pathAndQuery[0], pathAndQuery[1], headers, contentLength,
                remote, protocol, peerCertificates);
        Response early;
        Object note = null;
        long bodyBytesMax = Long.MAX_VALUE;
        boolean priority = false;
        boolean onLoop = false;
        try {
            HeadAdmission.Verdict verdict = admission.verdict(head);
            early = verdict == null ? null : verdict.answer();
            note = verdict == null ? null : verdict.note();
            if (early == null) {
                bodyBytesMax = admission.bodyBytesMax(head);
                if (bodyBytesMax < 0) {
                    throw new IllegalStateException("negative body limit " + bodyBytesMax);
                }
                priority = admission.priority(head);
                onLoop = admission.onLoop(head);
            }
        } catch (RuntimeException e) {
            log.error("head admission failed for {} {} from {}", LogText.of(method), LogText.of(head.path()), remote, e);
            early = Response.text(500, "internal server error");
        }
        if (early != null && (early.status() < 200 || early.status() > 599 || early.body() instanceof ResponseBody.Streamed)) {
            log.error("head admission answered {} {} with status {} or a streamed body; sending 500", LogText.of(method),
                    LogText.of(head.path()), early.status());
            if (early.body() instanceof ResponseBody.Streamed streamed) {
                ResponseEncoder.closeQuietly(streamed.source());
            }
            early = Response.text(500, "internal server error");
        }
        if (early != null) {
            refused.increment();
            return new Decision(early, null, 0, false, false);
        }
        return note == null && bodyBytesMax == Long.MAX_VALUE && !priority && !onLoop ? Decision.READ_BODY
                : new Decision(null, note, bodyBytesMax, priority, onLoop);
    }

    /** Requests answered at their head since start. */
    long refused() {
        return refused.sum();
    }
}

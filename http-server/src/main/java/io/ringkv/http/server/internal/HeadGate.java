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
 * arrived is answered now, before its body is read. A hook that throws costs the request a 500,
 * never the connection or the loop.
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
     * @param target the request-target as sent
     * @return the answer to send at once, or none and a note for the handler
     */
    HeadAdmission.Verdict admit(String method, String target, Headers headers, long contentLength, InetSocketAddress remote,
                   Protocol protocol, List<X509Certificate> peerCertificates) {
        if (admission == null) {
            return HeadAdmission.Verdict.PASS;
        }
        String[] pathAndQuery = RequestTarget.split(target);
        HeadAdmission.Head head = new HeadAdmission.Head(method, pathAndQuery[0], pathAndQuery[1], headers, contentLength,
                remote, protocol, peerCertificates);
        Response early;
        Object note = null;
        try {
            HeadAdmission.Verdict verdict = admission.verdict(head);
            early = verdict == null ? null : verdict.answer();
            note = verdict == null ? null : verdict.note();
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
            return HeadAdmission.Verdict.answer(early);
        }
        return HeadAdmission.Verdict.pass(note);
    }

    /** Requests answered at their head since start. */
    long refused() {
        return refused.sum();
    }
}

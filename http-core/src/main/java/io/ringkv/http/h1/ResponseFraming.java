package io.ringkv.http.h1;

import io.ringkv.http.Headers;
import io.ringkv.http.h1.ResponseHead.Framing;

/**
 * How a response body is delimited, RFC 9112 §6.3, which depends on the request method as
 * well as on the response. Stateless.
 *
 * @param framing       the rule that applies
 * @param contentLength the length for {@link Framing#LENGTH}; 0 for NONE and SWITCHED; -1 otherwise
 */
record ResponseFraming(Framing framing, long contentLength) {
    private static final ResponseFraming NONE = new ResponseFraming(Framing.NONE, 0);
    private static final ResponseFraming SWITCHED = new ResponseFraming(Framing.SWITCHED, 0);
    private static final ResponseFraming CHUNKED = new ResponseFraming(Framing.CHUNKED, -1);
    private static final ResponseFraming UNTIL_CLOSE = new ResponseFraming(Framing.UNTIL_CLOSE, -1);

    /** Called for final responses only (1xx other than 101 are interim and have no body). */
    static ResponseFraming of(String requestMethod, int status, int minorVersion, Headers headers) throws H1ParseException {
        // §6.3 rules 1 and 2, in order.
        if (status == 101 || (requestMethod.equals("CONNECT") && status / 100 == 2)) {
            return SWITCHED;
        }
        if (requestMethod.equals("HEAD") || status == 204 || status == 304) {
            return NONE;
        }
        if (minorVersion == 0 && headers.contains("Transfer-Encoding")) {
            // RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
            throw H1ParseException.badRequest("transfer_encoding_in_http_1_0");
        }
        // Rules 3-5. Stricter than §6.3 allows (it lets TE override CL, and a non-chunked final
        // coding mean "until close"): both signal smuggling or a coding we cannot decode.
        long length = BodyFraming.bodyLength(headers);
        if (length == BodyFraming.CHUNKED) {
            return CHUNKED;
        }
        if (length == 0) {
            return headers.contains("Content-Length") ? NONE : UNTIL_CLOSE;
        }
        return new ResponseFraming(Framing.LENGTH, length);
    }
}

package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Malformed and hostile responses: one row per rule, exact reason, every {@link Chunking}. */
class ResponseParserRejectionTest {

    record Case(String rule, String wire, String reason) {
        @Override
        public String toString() {
            return rule;
        }
    }

    static List<Case> corpus() {
        String ok = "HTTP/1.1 200 OK\r\n";
        return List.of(
                new Case("not HTTP", "ICY 200 OK\r\n\r\n", "invalid_status_line"),
                new Case("HTTP/2 version", "HTTP/2.0 200 OK\r\n\r\n", "unsupported_version"),
                new Case("lowercase version", "http/1.1 200 OK\r\n\r\n", "invalid_status_line"),
                new Case("two-digit status", "HTTP/1.1 20 OK\r\n\r\n", "invalid_status"),
                new Case("status under 100", "HTTP/1.1 099 Odd\r\n\r\n", "invalid_status"),
                new Case("four-digit status", "HTTP/1.1 2000 OK\r\n\r\n", "invalid_status_line"),
                new Case("control character in reason", "HTTP/1.1 200 O\u0001K\r\n\r\n", "invalid_reason_phrase"),
                new Case("bare CR in status line", "HTTP/1.1 200 O\rK\r\n\r\n", "bare_cr"),
                new Case("status line over the limit", "HTTP/1.1 200 " + "x".repeat(9000) + "\r\n\r\n", "status_line_too_long"),
                new Case("folded line before any field", ok + " X: a\r\n\r\n", "obsolete_line_folding"),
                new Case("control character in a folded line", ok + "X: a\r\n b\u0001\r\n\r\n", "invalid_field_value"),
                new Case("space before colon", ok + "Content-Length : 1\r\n\r\nx", "whitespace_before_colon"),
                new Case("Content-Length with Transfer-Encoding",
                        ok + "Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", "content_length_with_transfer_encoding"),
                new Case("conflicting Content-Length", ok + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nxy",
                        "conflicting_content_length"),
                new Case("malformed Content-Length", ok + "Content-Length: 1x\r\n\r\nx", "invalid_content_length"),
                new Case("Content-Length over the body limit", ok + "Content-Length: 16777217\r\n\r\n", "content_length_too_large"),
                new Case("unsupported transfer coding", ok + "Transfer-Encoding: gzip, chunked\r\n\r\n", "unsupported_transfer_coding"),
                new Case("chunked not final", ok + "Transfer-Encoding: chunked, gzip\r\n\r\n", "chunked_not_final_coding"),
                new Case("Transfer-Encoding in HTTP/1.0", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                        "transfer_encoding_in_http_1_0"),
                new Case("bad chunk size", ok + "Transfer-Encoding: chunked\r\n\r\nz\r\n", "invalid_chunk_size"),
                new Case("chunk without CRLF", ok + "Transfer-Encoding: chunked\r\n\r\n1\r\nxy", "missing_chunk_crlf"),
                new Case("too many header fields", ok + "X: 1\r\n".repeat(101) + "\r\n", "too_many_header_fields"),
                new Case("bytes with no request outstanding", ok + "Content-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
                        "unsolicited_response"));
    }

    static Stream<Arguments> casesUnderEveryChunking() {
        return corpus().stream().flatMap(c -> Arrays.stream(Chunking.values()).map(ch -> Arguments.of(c, ch)));
    }

    @ParameterizedTest(name = "{0} ({1})")
    @MethodSource("casesUnderEveryChunking")
    void rejectsWithTheExactReason(Case rejection, Chunking chunking) {
        List<String> events = ResponseTranscript.of(chunking, H1Limits.defaults(), List.of("GET"),
                rejection.wire().getBytes(ISO_8859_1), false);
        assertThat(events.get(events.size() - 1), is("error " + rejection.reason()));
    }
}

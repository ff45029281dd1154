package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed and hostile requests: one row per rejection rule, each asserting the exact status
 * and reason, under every {@link Chunking}. Nothing may throw.
 */
class RequestParserRejectionTest {
    private static final String HOST = "Host: a\r\n";

    record Case(String rule, String wire, int status, String reason) {
        @Override
        public String toString() {
            return rule;
        }
    }

    static List<Case> corpus() {
        return List.of(
                // Request line, RFC 9112 §3
                new Case("method must be a token", "G(T / HTTP/1.1\r\n" + HOST + "\r\n", 400, "invalid_method"),
                new Case("empty method", " / HTTP/1.1\r\n" + HOST + "\r\n", 400, "invalid_method"),
                new Case("two spaces after method", "GET  / HTTP/1.1\r\n" + HOST + "\r\n", 400, "invalid_target"),
                new Case("control character in target", "GET /a\u0001b HTTP/1.1\r\n" + HOST + "\r\n", 400, "invalid_target"),
                new Case("non-ASCII target", "GET /caf\u00e9 HTTP/1.1\r\n" + HOST + "\r\n", 400, "invalid_target"),
                new Case("HTTP/0.9 request line", "GET /\r\n\r\n", 400, "invalid_target"),
                new Case("lowercase version", "GET / http/1.1\r\n" + HOST + "\r\n", 400, "invalid_version"),
                new Case("two-digit minor", "GET / HTTP/1.10\r\n" + HOST + "\r\n", 400, "invalid_version"),
                new Case("trailing space after version", "GET / HTTP/1.1 \r\n" + HOST + "\r\n", 400, "invalid_version"),
                new Case("HTTP/2.0 over HTTP/1 syntax", "GET / HTTP/2.0\r\n" + HOST + "\r\n", 505, "unsupported_version"),
                new Case("HTTP/0.9 version", "GET / HTTP/0.9\r\n" + HOST + "\r\n", 505, "unsupported_version"),
                // Line endings, RFC 9112 §2.2
                new Case("bare CR in request line", "GET /\r HTTP/1.1\r\n" + HOST + "\r\n", 400, "bare_cr"),
                new Case("bare CR in field value", "GET / HTTP/1.1\r\nX: a\rb\r\n" + HOST + "\r\n", 400, "bare_cr"),
                new Case("bare CR ending the head", "GET / HTTP/1.1\r\n" + HOST + "\r\r\n", 400, "bare_cr"),
                // Field lines, RFC 9112 §5 and RFC 9110 §5.5
                new Case("obsolete line folding", "GET / HTTP/1.1\r\n" + HOST + "X: a\r\n  b\r\n\r\n", 400, "obsolete_line_folding"),
                new Case("line folding with HTAB", "GET / HTTP/1.1\r\n" + HOST + "X: a\r\n\tb\r\n\r\n", 400, "obsolete_line_folding"),
                new Case("space before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400, "whitespace_before_colon"),
                new Case("tab before colon", "GET / HTTP/1.1\r\n" + HOST + "X\t: a\r\n\r\n", 400, "whitespace_before_colon"),
                new Case("non-token byte in name", "GET / HTTP/1.1\r\n" + HOST + "X(y): a\r\n\r\n", 400, "invalid_field_name"),
                new Case("non-ASCII name", "GET / HTTP/1.1\r\n" + HOST + "X\u00e9: a\r\n\r\n", 400, "invalid_field_name"),
                new Case("empty field name", "GET / HTTP/1.1\r\n" + HOST + ": a\r\n\r\n", 400, "empty_field_name"),
                new Case("field line without colon", "GET / HTTP/1.1\r\n" + HOST + "X\r\n\r\n", 400, "missing_colon"),
                new Case("NUL in value", "GET / HTTP/1.1\r\n" + HOST + "X: a\u0000b\r\n\r\n", 400, "invalid_field_value"),
                new Case("ESC in value", "GET / HTTP/1.1\r\n" + HOST + "X: a\u001bb\r\n\r\n", 400, "invalid_field_value"),
                new Case("DEL in value", "GET / HTTP/1.1\r\n" + HOST + "X: a\u007f\r\n\r\n", 400, "invalid_field_value"),
                // Host, RFC 9112 §3.2
                new Case("HTTP/1.1 without Host", "GET / HTTP/1.1\r\n\r\n", 400, "missing_host"),
                new Case("two Host fields", "GET / HTTP/1.1\r\n" + HOST + HOST + "\r\n", 400, "multiple_host"),
                new Case("Host with a path", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", 400, "invalid_host"),
                // Content-Length, RFC 9110 §8.6 and RFC 9112 §6
                new Case("Content-Length with Transfer-Encoding",
                        "POST / HTTP/1.1\r\n" + HOST + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
                        "content_length_with_transfer_encoding"),
                new Case("Transfer-Encoding with Content-Length",
                        "POST / HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400,
                        "content_length_with_transfer_encoding"),
                new Case("differing Content-Length fields",
                        "POST / HTTP/1.1\r\n" + HOST + "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400,
                        "conflicting_content_length"),
                new Case("differing Content-Length list", "POST / HTTP/1.1\r\n" + HOST + "Content-Length: 3, 4\r\n\r\nabcd", 400,
                        "conflicting_content_length"),
                new Case("Content-Length with a sign", "POST / HTTP/1.1\r\n" + HOST + "Content-Length: +5\r\n\r\n", 400,
                        "invalid_content_length"),
                new Case("negative Content-Length", "POST / HTTP/1.1\r\n" + HOST + "Content-Length: -1\r\n\r\n", 400,
                        "invalid_content_length"),
                new Case("hex Content-Length", "POST / HTTP/1.1\r\n" + HOST + "Content-Length: 0x10\r\n\r\n", 400,
                        "invalid_content_length"),
                new Case("Content-Length with inner space", "POST / HTTP/1.1\r\n" + HOST + "Content-Length: 1 2\r\n\r\n", 400,
                        "invalid_content_length"),
                new Case("empty Content-Length", "POST / HTTP/1.1\r\n" + HOST + "Content-Length:\r\n\r\n", 400,
                        "invalid_content_length"),
                new Case("Content-Length of commas only", "POST / HTTP/1.1\r\n" + HOST + "Content-Length: ,\r\n\r\n", 400,
                        "invalid_content_length"),
                new Case("Content-Length overflowing a long",
                        "POST / HTTP/1.1\r\n" + HOST + "Content-Length: 99999999999999999999\r\n\r\n", 400,
                        "content_length_overflow"),
                new Case("huge Content-Length over the body limit",
                        "POST / HTTP/1.1\r\n" + HOST + "Content-Length: 999999999999999999\r\n\r\n", 413,
                        "content_length_too_large"),
                // Transfer-Encoding, RFC 9112 §6.1, §6.3, §7
                new Case("unknown coding before chunked",
                        "POST / HTTP/1.1\r\n" + HOST + "Transfer-Encoding: gzip, chunked\r\n\r\n", 501, "unsupported_transfer_coding"),
                new Case("coding on a separate field line before chunked",
                        "POST / HTTP/1.1\r\n" + HOST + "Transfer-Encoding: br\r\nTransfer-Encoding: chunked\r\n\r\n", 501,
                        "unsupported_transfer_coding"),
                new Case("chunked not final", "POST / HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked, gzip\r\n\r\n", 400,
                        "chunked_not_final_coding"),
                new Case("only a non-chunked coding", "POST / HTTP/1.1\r\n" + HOST + "Transfer-Encoding: gzip\r\n\r\n", 400,
                        "chunked_not_final_coding"),
                new Case("chunked twice", "POST / HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked, chunked\r\n\r\n", 400,
                        "chunked_applied_twice"),
                new Case("malformed coding", "POST / HTTP/1.1\r\n" + HOST + "Transfer-Encoding: \"chunked\"\r\n\r\n", 400,
                        "invalid_transfer_encoding"),
                new Case("empty Transfer-Encoding", "POST / HTTP/1.1\r\n" + HOST + "Transfer-Encoding:\r\n\r\n", 400,
                        "invalid_transfer_encoding"),
                new Case("chunked with parameters", "POST / HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked;q=1\r\n\r\n", 400,
                        "invalid_transfer_encoding"),
                new Case("Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400,
                        "transfer_encoding_in_http_1_0"),
                // Chunked framing, RFC 9112 §7.1
                new Case("non-hex chunk size", chunked("g\r\nx\r\n0\r\n\r\n"), 400, "invalid_chunk_size"),
                new Case("empty chunk size", chunked("\r\nx\r\n0\r\n\r\n"), 400, "invalid_chunk_size"),
                new Case("negative chunk size", chunked("-1\r\nx\r\n0\r\n\r\n"), 400, "invalid_chunk_size"),
                new Case("0x-prefixed chunk size", chunked("0x1\r\nx\r\n0\r\n\r\n"), 400, "invalid_chunk_size"),
                new Case("chunk size with trailing space", chunked("1 \r\nx\r\n0\r\n\r\n"), 400, "invalid_chunk_size"),
                new Case("chunk size overflow", chunked("10000000000000000\r\nx\r\n0\r\n\r\n"), 400, "chunk_size_overflow"),
                new Case("chunk size line with bare LF", chunked("1\nx\r\n0\r\n\r\n"), 400, "bare_lf"),
                new Case("chunk data without CRLF", chunked("1\r\nxy\r\n0\r\n\r\n"), 400, "missing_chunk_crlf"),
                new Case("chunk data with bare LF", chunked("1\r\nx\n0\r\n\r\n"), 400, "missing_chunk_crlf"),
                new Case("control character in chunk extension", chunked("1;a=\u0001\r\nx\r\n0\r\n\r\n"), 400,
                        "invalid_chunk_extension"),
                new Case("chunk extensions past the bound",
                        chunked("1;" + "e".repeat(ChunkSizeLine.LINE_BYTES_MAX) + "\r\nx\r\n0\r\n\r\n"), 400, "chunk_line_too_long"),
                new Case("chunked body over the limit", chunked("1000001\r\n"), 413, "body_too_large"),
                new Case("obsolete folding in trailers", chunked("0\r\nT: a\r\n b\r\n\r\n"), 400, "obsolete_line_folding"),
                new Case("control character in trailer", chunked("0\r\nT: \u0007\r\n\r\n"), 400, "invalid_field_value"),
                // Limits
                new Case("request line one over the limit", "GET /" + "a".repeat(8 * 1024 - 13) + " HTTP/1.1\r\n" + HOST + "\r\n",
                        414, "request_line_too_long"),
                new Case("endless request line", "GET /" + "a".repeat(9000), 414, "request_line_too_long"),
                new Case("too many header fields", "GET / HTTP/1.1\r\n" + HOST + "X: y\r\n".repeat(100) + "\r\n", 431,
                        "too_many_header_fields"),
                new Case("endless header line", "GET / HTTP/1.1\r\n" + HOST + "X: " + "y".repeat(40_000), 431,
                        "header_section_too_large"),
                new Case("too many trailer fields", chunked("0\r\n" + "T: 1\r\n".repeat(101) + "\r\n"), 431,
                        "too_many_trailer_fields"),
                new Case("too many empty lines before the request", "\r\n".repeat(9) + "GET / HTTP/1.1\r\n" + HOST + "\r\n", 400,
                        "too_many_empty_lines"));
    }

    private static String chunked(String body) {
        return "POST / HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\n\r\n" + body;
    }

    static Stream<Arguments> casesUnderEveryChunking() {
        return corpus().stream().flatMap(c -> Arrays.stream(Chunking.values()).map(ch -> Arguments.of(c, ch)));
    }

    @ParameterizedTest(name = "{0} ({1})")
    @MethodSource("casesUnderEveryChunking")
    void rejectsWithTheExactStatus(Case rejection, Chunking chunking) {
        List<String> events = RequestTranscript.of(chunking, H1Limits.defaults(), rejection.wire().getBytes(ISO_8859_1));
        assertThat(events.get(events.size() - 1), is("error " + rejection.status() + " " + rejection.reason()));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void acceptsARequestLineExactlyAtTheLimit(Chunking chunking) {
        H1Limits limits = new H1Limits(32, 1024, 10, 100);
        String line = "GET /" + "a".repeat(32 - 14) + " HTTP/1.1";
        assertThat(line.length(), is(32));
        List<String> events = RequestTranscript.of(chunking, limits, (line + "\r\n" + HOST + "\r\n").getBytes(ISO_8859_1));
        assertThat(events.get(0).startsWith("head GET"), is(true));
        List<String> over = RequestTranscript.of(chunking, limits, ("GET /a" + line.substring(5) + "\r\n" + HOST + "\r\n")
                .getBytes(ISO_8859_1));
        assertThat(over, contains("error 414 request_line_too_long"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void acceptsAHeaderSectionExactlyAtTheLimitAndRejectsOneByteMore(Chunking chunking) {
        // Counted: every field line with its CRLF, plus the final CRLF.
        H1Limits limits = new H1Limits(100, 64, 10, 100);
        String atLimit = HOST + "X: " + "v".repeat(64 - HOST.length() - 7) + "\r\n" + "\r\n";
        assertThat(atLimit.length(), is(64));
        List<String> ok = RequestTranscript.of(chunking, limits, ("GET / HTTP/1.1\r\n" + atLimit).getBytes(ISO_8859_1));
        assertThat(ok.get(0).startsWith("head GET"), is(true));
        String overLimit = HOST + "X: v" + atLimit.substring(HOST.length() + 3);
        List<String> over = RequestTranscript.of(chunking, limits, ("GET / HTTP/1.1\r\n" + overLimit).getBytes(ISO_8859_1));
        assertThat(over, contains("error 431 header_section_too_large"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void acceptsExactlyTheMaximumFieldCountAndRejectsOneMore(Chunking chunking) {
        H1Limits limits = new H1Limits(100, 1024, 3, 100);
        String head = "GET / HTTP/1.1\r\n" + HOST + "A: 1\r\nB: 2\r\n";
        assertThat(RequestTranscript.of(chunking, limits, (head + "\r\n").getBytes(ISO_8859_1)),
                not(hasItem("error 431 too_many_header_fields")));
        assertThat(RequestTranscript.of(chunking, limits, (head + "C: 3\r\n\r\n").getBytes(ISO_8859_1)),
                contains("error 431 too_many_header_fields"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void boundsTheChunkedBodyTotalNotEachChunk(Chunking chunking) {
        H1Limits limits = new H1Limits(100, 1024, 10, 4);
        String fits = chunked("2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n");
        assertThat(RequestTranscript.of(chunking, limits, fits.getBytes(ISO_8859_1)).get(1), is("body abcd"));
        String over = chunked("2\r\nab\r\n2\r\ncd\r\n1\r\ne\r\n0\r\n\r\n");
        List<String> events = RequestTranscript.of(chunking, limits, over.getBytes(ISO_8859_1));
        assertThat(events.get(events.size() - 1), is("error 413 body_too_large"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void acceptsAContentLengthExactlyAtTheBodyLimit(Chunking chunking) {
        H1Limits limits = new H1Limits(100, 1024, 10, 4);
        String head = "PUT / HTTP/1.1\r\n" + HOST;
        assertThat(RequestTranscript.of(chunking, limits, (head + "Content-Length: 4\r\n\r\nabcd").getBytes(ISO_8859_1)).get(1),
                is("body abcd"));
        assertThat(RequestTranscript.of(chunking, limits, (head + "Content-Length: 5\r\n\r\nabcde").getBytes(ISO_8859_1)),
                contains("error 413 content_length_too_large"));
    }
}

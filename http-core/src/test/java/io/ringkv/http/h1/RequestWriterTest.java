package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.Headers;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class RequestWriterTest {

    @Test
    void writesRequestLineFieldsAndEmptyLine() {
        ByteBuffer head = RequestWriter.head("PUT", "/v0/entity?id=k", Headers.of("Host", "n1:8080", "Content-Length", "3"));
        assertThat(text(head), is("PUT /v0/entity?id=k HTTP/1.1\r\nHost: n1:8080\r\nContent-Length: 3\r\n\r\n"));
    }

    @Test
    void refusesRequestLinesThatWouldBreakFraming() {
        assertThrows(IllegalArgumentException.class, () -> RequestWriter.head("GE T", "/", new Headers()));
        assertThrows(IllegalArgumentException.class, () -> RequestWriter.head("GET", "/a b", new Headers()));
        assertThrows(IllegalArgumentException.class, () -> RequestWriter.head("GET", "/a\r\nX: y", new Headers()));
        assertThrows(IllegalArgumentException.class, () -> RequestWriter.head("GET", "", new Headers()));
        assertThrows(IllegalArgumentException.class, () -> RequestWriter.head("GET", "/", Headers.of("Host", "a\nb")));
    }

    @Test
    void sharesTheChunkedPiecesWithTheResponseWriter() {
        assertThat(text(RequestWriter.chunkHeader(0x1A)), is("1a\r\n"));
        assertThat(text(RequestWriter.chunkTrailer()), is("\r\n"));
        assertThat(text(RequestWriter.lastChunk()), is("0\r\n\r\n"));
        assertThat(text(RequestWriter.lastChunk(Headers.of("T", "1"))), is("0\r\nT: 1\r\n\r\n"));
    }

    private static String text(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, ISO_8859_1);
    }
}

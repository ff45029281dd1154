package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.Headers;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ResponseWriterTest {

    @Test
    void writesStatusLineFieldsAndEmptyLine() {
        ByteBuffer head = ResponseWriter.head(200, Headers.of("Content-Length", "2", "X-Note", "a\tb"));
        assertThat(text(head), is("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Note: a\tb\r\n\r\n"));
    }

    @Test
    void usesStandardReasonPhrases() {
        assertThat(text(ResponseWriter.head(413, new Headers())), is("HTTP/1.1 413 Content Too Large\r\n\r\n"));
        assertThat(text(ResponseWriter.head(503, new Headers())), is("HTTP/1.1 503 Service Unavailable\r\n\r\n"));
    }

    @Test
    void writesAnEmptyReasonPhraseForAnUnknownStatus() {
        assertThat(text(ResponseWriter.head(299, new Headers())), is("HTTP/1.1 299 \r\n\r\n"));
    }

    @Test
    void refusesValuesThatWouldSplitTheResponse() {
        assertThrows(IllegalArgumentException.class, () -> ResponseWriter.head(200, Headers.of("X", "a\r\nSet-Cookie: b")));
        assertThrows(IllegalArgumentException.class, () -> ResponseWriter.head(200, Headers.of("X", "a\nb")));
        assertThrows(IllegalArgumentException.class, () -> ResponseWriter.head(200, Headers.of("X y", "a")));
        assertThrows(IllegalArgumentException.class, () -> ResponseWriter.head(200, Headers.of("X", "\u20ac")));
        assertThrows(IllegalArgumentException.class, () -> ResponseWriter.head(99, new Headers()));
    }

    @Test
    void writesChunkPieces() {
        assertThat(text(ResponseWriter.chunkHeader(255)), is("ff\r\n"));
        assertThat(text(ResponseWriter.chunkHeader(1)), is("1\r\n"));
        assertThat(text(ResponseWriter.chunkTrailer()), is("\r\n"));
        assertThat(text(ResponseWriter.lastChunk()), is("0\r\n\r\n"));
        assertThat(text(ResponseWriter.lastChunk(Headers.of("Checksum", "x"))), is("0\r\nChecksum: x\r\n\r\n"));
        assertThrows(IllegalArgumentException.class, () -> ResponseWriter.chunkHeader(0));
    }

    @Test
    void sharedPiecesSurviveBeingConsumed() {
        ResponseWriter.lastChunk().position(5);
        ResponseWriter.chunkTrailer().get();
        assertThat(text(ResponseWriter.lastChunk()), is("0\r\n\r\n"));
        assertThat(text(ResponseWriter.chunkTrailer()), is("\r\n"));
    }

    private static String text(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, ISO_8859_1);
    }
}

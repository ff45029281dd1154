package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Well-formed requests: every test runs whole, one byte at a time, and split at every offset. */
class RequestParserTest {

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void parsesGetWithoutBody(Chunking chunking) {
        List<String> events = RequestTranscript.of(chunking, "GET /v0/entity?id=1 HTTP/1.1\r\nHost: a\r\n\r\n");
        assertThat(events, contains(
                "head GET /v0/entity?id=1 1.1 {host: a} keepAlive=true expectContinue=false length=0",
                "end {}"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void parsesContentLengthBody(Chunking chunking) {
        List<String> events = RequestTranscript.of(chunking,
                "PUT /v0/entity?id=k HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world");
        assertThat(events, contains(
                "head PUT /v0/entity?id=k 1.1 {host: a, content-length: 11} keepAlive=true expectContinue=false length=11",
                "body hello world",
                "end {}"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void parsesChunkedBodyWithExtensionsAndTrailers(Chunking chunking) {
        List<String> events = RequestTranscript.of(chunking, "POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value;other=\"quoted\"\r\nhello\r\n"
                + "6 ; bws=ok\r\n world\r\n"
                + "A\r\n0123456789\r\n"
                + "0;last\r\nChecksum: abc\r\nX-Done:  yes \r\n\r\n");
        assertThat(events, contains(
                "head POST /x 1.1 {host: a, transfer-encoding: chunked} keepAlive=true expectContinue=false length=-1",
                "body hello world0123456789",
                "end {checksum: abc, x-done: yes}"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void parsesPipelinedRequestsInOneBuffer(Chunking chunking) {
        List<String> events = RequestTranscript.of(chunking,
                "GET /1 HTTP/1.1\r\nHost: a\r\n\r\n"
                + "PUT /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
                + "POST /3 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\n"
                + "DELETE /4 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
        assertThat(events, contains(
                "head GET /1 1.1 {host: a} keepAlive=true expectContinue=false length=0",
                "end {}",
                "head PUT /2 1.1 {host: a, content-length: 3} keepAlive=true expectContinue=false length=3",
                "body abc",
                "end {}",
                "head POST /3 1.1 {host: a, transfer-encoding: chunked} keepAlive=true expectContinue=false length=-1",
                "body xy",
                "end {}",
                "head DELETE /4 1.1 {host: a, connection: close} keepAlive=false expectContinue=false length=0",
                "end {}"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void keepsHttp11AliveUnlessConnectionClose(Chunking chunking) {
        assertThat(keepAlive(chunking, "HTTP/1.1", ""), is(true));
        assertThat(keepAlive(chunking, "HTTP/1.1", "Connection: close\r\n"), is(false));
        assertThat(keepAlive(chunking, "HTTP/1.1", "Connection: Upgrade, CLOSE\r\n"), is(false));
        assertThat(keepAlive(chunking, "HTTP/1.1", "Connection: keep-alive\r\n"), is(true));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void keepsHttp10AliveOnlyWithConnectionKeepAlive(Chunking chunking) {
        assertThat(keepAlive(chunking, "HTTP/1.0", ""), is(false));
        assertThat(keepAlive(chunking, "HTTP/1.0", "Connection: Keep-Alive\r\n"), is(true));
        assertThat(keepAlive(chunking, "HTTP/1.0", "Connection: keep-alive, close\r\n"), is(false));
    }

    private static boolean keepAlive(Chunking chunking, String version, String connection) {
        List<String> events = RequestTranscript.of(chunking, "GET / " + version + "\r\nHost: a\r\n" + connection + "\r\n");
        return events.get(0).contains("keepAlive=true");
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void detectsExpect100ContinueOnHttp11Only(Chunking chunking) {
        List<String> http11 = RequestTranscript.of(chunking,
                "PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\nx");
        List<String> http10 = RequestTranscript.of(chunking,
                "PUT / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx");
        assertThat(http11.get(0).contains("expectContinue=true"), is(true));
        assertThat(http10.get(0).contains("expectContinue=false"), is(true));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void acceptsHttp10WithoutHost(Chunking chunking) {
        assertThat(RequestTranscript.of(chunking, "GET / HTTP/1.0\r\n\r\n"), contains(
                "head GET / 1.0 {} keepAlive=false expectContinue=false length=0", "end {}"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void processesAHigherHttp1MinorVersionAsHttp11(Chunking chunking) {
        List<String> events = RequestTranscript.of(chunking, "GET / HTTP/1.7\r\nHost: a\r\n\r\n");
        assertThat(events.get(0), is("head GET / 1.1 {host: a} keepAlive=true expectContinue=false length=0"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void acceptsIdenticalRepeatedContentLengths(Chunking chunking) {
        List<String> events = RequestTranscript.of(chunking,
                "PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok");
        assertThat(events.get(1), is("body ok"));
        assertThat(events.get(0).endsWith("length=2"), is(true));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void acceptsBareLineFeedsInHeadAndTrailers(Chunking chunking) {
        List<String> events = RequestTranscript.of(chunking,
                "POST / HTTP/1.1\nHost: a\nTransfer-Encoding: chunked\n\n1\r\nz\r\n0\r\nT: 1\n\n");
        assertThat(events, contains(
                "head POST / 1.1 {host: a, transfer-encoding: chunked} keepAlive=true expectContinue=false length=-1",
                "body z",
                "end {t: 1}"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void toleratesBoundedEmptyLinesBeforeTheRequestLine(Chunking chunking) {
        String empties = "\r\n".repeat(RequestParser.LEADING_EMPTY_LINES_MAX);
        assertThat(RequestTranscript.of(chunking, empties + "GET / HTTP/1.1\r\nHost: a\r\n\r\n").get(0).startsWith("head GET"),
                is(true));
        assertThat(RequestTranscript.of(chunking, empties + "\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"),
                contains("error 400 too_many_empty_lines"));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void keepsFieldValuesWithObsTextAndInnerWhitespace(Chunking chunking) {
        List<String> events = RequestTranscript.of(chunking, "GET / HTTP/1.1\r\nHost: a\r\nX-Note: \tcaf\u00e9 \t au lait\t\r\n\r\n");
        assertThat(events.get(0).contains("x-note: caf\u00e9 \t au lait}"), is(true));
    }

    @Test
    void endsAMessageWithoutFurtherInputAfterTheLastBodyByte() {
        RequestParser parser = new RequestParser(H1Limits.defaults());
        ByteBuffer in = ByteBuffer.wrap("PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nx".getBytes(ISO_8859_1));
        assertThat(parser.next(in), instanceOf(RequestHead.class));
        assertThat(parser.next(in), instanceOf(BodyChunk.class));
        assertThat(parser.next(in), instanceOf(MessageEnd.class));
        assertThat(parser.next(in), nullValue());
    }

    @Test
    void bodyChunksAreSlicesOfTheInputNotCopies() {
        RequestParser parser = new RequestParser(H1Limits.defaults());
        ByteBuffer in = ByteBuffer.wrap("PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc".getBytes(ISO_8859_1));
        parser.next(in);
        BodyChunk chunk = (BodyChunk) parser.next(in);
        in.put(in.limit() - 3, (byte) 'X');
        assertThat(chunk.data().get(0), is((byte) 'X'));
    }
}

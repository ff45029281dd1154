package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.server.ChunkSource;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ResponseBody;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Proofs of internal answers, whole and streamed, against every change a host on the path could make. */
class AnswerAuthTest {

    private static final AnswerAuth ANSWERS = TestAuth.auth().answers();
    private static final ClusterNode PEER = ClusterNode.parse("http://127.0.0.1:9");
    private static final String REQUEST = "proof-of-the-request";

    @Test
    void aWholeAnswerVerifiesOnlyAsSignedForItsRequest() {
        Response signed = ANSWERS.sign(REQUEST, Response.of(200, utf8("value")).withHeader(InternalProtocol.EPOCH_HEADER, "42"));
        byte[] body = ((ResponseBody.Fixed) signed.body()).bytes();
        Map<String, List<String>> fields = fieldsOf(signed);

        assertThat(ANSWERS.verifies(REQUEST, 200, headers(fields), body), is(true));
        assertThat("another body", ANSWERS.verifies(REQUEST, 200, headers(fields), utf8("forged")), is(false));
        assertThat("another status", ANSWERS.verifies(REQUEST, 404, headers(fields), body), is(false));
        assertThat("another request", ANSWERS.verifies("proof-of-another-request", 200, headers(fields), body), is(false));
        Map<String, List<String>> later = new LinkedHashMap<>(fields);
        later.put(InternalProtocol.EPOCH_HEADER, List.of("43"));
        assertThat("another epoch", ANSWERS.verifies(REQUEST, 200, headers(later), body), is(false));
        Map<String, List<String>> added = new LinkedHashMap<>(fields);
        added.put("X-Ringkv-Tombstone", List.of("true"));
        assertThat("a field added", ANSWERS.verifies(REQUEST, 200, headers(added), body), is(false));
        Map<String, List<String>> unsigned = new LinkedHashMap<>(fields);
        unsigned.remove(InternalAuth.AUTH_HEADER);
        assertThat("no proof", ANSWERS.verifies(REQUEST, 200, headers(unsigned), body), is(false));
        AnswerAuth otherSecret = TestAuth.auth(ClusterSecret.of("a guessed secret of some length"), TestAuth.TOPOLOGY).answers();
        assertThat("another secret", otherSecret.verifies(REQUEST, 200, headers(fields), body), is(false));
    }

    @Test
    void anEmptyAnswerIsSignedToo() {
        Response signed = ANSWERS.sign(REQUEST, Response.of(204).withHeader(InternalProtocol.EPOCH_HEADER, "7"));
        assertThat(ANSWERS.verifies(REQUEST, 204, headers(fieldsOf(signed)), new byte[0]), is(true));
        Map<String, List<String>> applied = new LinkedHashMap<>(fieldsOf(signed));
        applied.put(InternalProtocol.EPOCH_HEADER, List.of("8"));
        assertThat(ANSWERS.verifies(REQUEST, 204, headers(applied), new byte[0]), is(false));
    }

    @Test
    void aStreamedAnswerReadsBackWholeAndItsHeadSaysSegmented() throws Exception {
        Response signed = ANSWERS.sign(REQUEST, Response.streamed(200, chunks("first ", "", "second ", "third")));
        assertThat(ANSWERS.verifiesSegmentedHead(REQUEST, 200, headers(fieldsOf(signed))), is(true));
        assertThat("not a whole body", ANSWERS.verifies(REQUEST, 200, headers(fieldsOf(signed)), new byte[0]), is(false));
        byte[] wire = wire(signed);
        assertThat(readAll(REQUEST, wire), equalTo(utf8("first second third")));
    }

    @Test
    void aSegmentChangedDroppedRepeatedOrCutOffFailsBeforeItsBytesAreHandedOut() throws Exception {
        List<byte[]> segments = segments(wire(ANSWERS.sign(REQUEST, Response.streamed(200, chunks("aaaa", "bbbb")))));
        assertThat(segments.size(), is(3)); // two chunks and the final empty segment

        byte[] changed = concat(segments);
        changed[Integer.BYTES] = 'x'; // the first byte of the first payload
        assertThat(failure(REQUEST, changed).getMessage(), containsString("segment 0"));
        assertThat(failure(REQUEST, concat(List.of(segments.get(1), segments.get(2)))).getMessage(), containsString("segment 0"));
        assertThat(failure(REQUEST, concat(List.of(segments.get(0), segments.get(0), segments.get(2)))).getMessage(),
                containsString("segment 1"));
        assertThat(failure(REQUEST, concat(List.of(segments.get(0), segments.get(1)))).getMessage(), containsString("final segment"));
        assertThat("moved to another request's answer", failure("proof-of-another-request", concat(segments)).getMessage(),
                containsString("segment 0"));

        RejectedAnswers rejections = new RejectedAnswers();
        InputStream in = ANSWERS.segments(PEER, REQUEST, new ByteArrayInputStream(changed), 1 << 20, rejections);
        assertThrows(ReplicaException.class, in::read);
        assertThat(rejections.counts(), is(Map.of(PEER.id(), 1L)));
    }

    @Test
    void aSegmentAnnouncingMoreThanTheBoundIsRefusedUnread() {
        byte[] wire = ByteBuffer.allocate(Integer.BYTES).putInt(Integer.MAX_VALUE).array();
        ReplicaException e = assertThrows(ReplicaException.class,
                () -> ANSWERS.segments(PEER, REQUEST, new ByteArrayInputStream(wire), 1 << 20, new RejectedAnswers()).read());
        assertThat(e.getMessage(), containsString("announcing 2147483647 bytes"));
    }

    private static IOException failure(String requestProof, byte[] wire) {
        return assertThrows(IOException.class, () -> readAll(requestProof, wire));
    }

    private static byte[] readAll(String requestProof, byte[] wire) throws IOException {
        try (InputStream in = ANSWERS.segments(PEER, requestProof, new ByteArrayInputStream(wire), 1 << 20, new RejectedAnswers())) {
            return in.readAllBytes();
        }
    }

    /** Splits a signed stream into its segments, each with its length and MAC. */
    private static List<byte[]> segments(byte[] wire) {
        List<byte[]> segments = new ArrayList<>();
        ByteBuffer in = ByteBuffer.wrap(wire);
        while (in.hasRemaining()) {
            int length = in.getInt(in.position());
            byte[] segment = new byte[Integer.BYTES + length + ProofKey.MAC_BYTES];
            in.get(segment);
            segments.add(segment);
        }
        return segments;
    }

    private static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        parts.forEach(out::writeBytes);
        return out.toByteArray();
    }

    private static byte[] wire(Response signed) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ChunkSource source = ((ResponseBody.Streamed) signed.body()).source()) {
            for (ByteBuffer chunk = source.next(); chunk != null; chunk = source.next()) {
                out.write(chunk.array(), chunk.arrayOffset() + chunk.position(), chunk.remaining());
            }
        }
        return out.toByteArray();
    }

    private static ChunkSource chunks(String... texts) {
        Deque<String> left = new ArrayDeque<>(List.of(texts));
        return new ChunkSource() {
            @Override
            public ByteBuffer next() {
                return left.isEmpty() ? null : ByteBuffer.wrap(utf8(left.poll()));
            }

            @Override
            public void close() {
            }
        };
    }

    private static Map<String, List<String>> fieldsOf(Response response) {
        Map<String, List<String>> fields = new LinkedHashMap<>();
        for (int i = 0; i < response.headers().size(); i++) {
            fields.computeIfAbsent(response.headers().name(i), name -> new ArrayList<>()).add(response.headers().value(i));
        }
        return fields;
    }

    private static HttpHeaders headers(Map<String, List<String>> fields) {
        return HttpHeaders.of(fields, (name, value) -> true);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

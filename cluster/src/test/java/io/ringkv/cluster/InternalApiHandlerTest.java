package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.Headers;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ResponseBody;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The handler alone, request in, response out; {@link RemoteReplicaTest} covers it over sockets. */
class InternalApiHandlerTest {

    private static final long WALL_MILLIS = 1_700_000_000_000L;
    private static final byte[] KEY = {0, (byte) 0xFF, '+', ' ', '/'};

    private final InMemoryStorageEngine engine = new InMemoryStorageEngine();
    private final HybridLogicalClock clock = new HybridLogicalClock(() -> WALL_MILLIS);
    private final InternalApiHandler handler = TestAuth.handler(engine, clock);

    @Test
    void storesARecordWithTheGivenTimestampAndReadsItBack() throws Exception {
        assertThat(writeOne(KEY, Record.value(77, utf8("v"))), is(WriteBatchCodec.STORED));
        assertThat(engine.get(KEY), is(Optional.of(Record.value(77, utf8("v")))));
        assertThat(readOne(KEY), is(Optional.of(Record.value(77, utf8("v")))));
    }

    @Test
    void storesAndReadsBackARecordsExpiry() throws Exception {
        assertThat(writeOne(KEY, Record.expiring(77, utf8("v"), 1_700_000_002_000L)), is(WriteBatchCodec.STORED));
        assertThat(engine.get(KEY), is(Optional.of(Record.expiring(77, utf8("v"), 1_700_000_002_000L))));
        assertThat(readOne(KEY), is(Optional.of(Record.expiring(77, utf8("v"), 1_700_000_002_000L))));
    }

    /** A node answers the first key of a batch whatever its value's size: a read alone is never deferred. */
    @Test
    void theOnlyKeyOfAReadBatchIsAnsweredHoweverLargeItsValue() throws Exception {
        byte[] large = new byte[2 * ReadBatchCodec.ANSWER_VALUE_BYTES];
        engine.apply(KEY, Record.value(5, large));
        assertThat(readOne(KEY).orElseThrow().value().length, is(large.length));
    }

    @Test
    void aMalformedExpiryOrOneOnATombstoneIs400() throws Exception {
        for (long expiry : new long[] {0, -5}) {
            byte[] malformed = frame(KEY, 7, RecordFrames.FLAG_EXPIRES, expiry, utf8("v"));
            assertThat(expiry + "", handle(handler, "PUT", InternalProtocol.WRITES_PATH, "", Headers.of(), malformed).status(), is(400));
        }
        byte[] tombstone = frame(KEY, 7, RecordFrames.FLAG_TOMBSTONE | RecordFrames.FLAG_EXPIRES, 9, new byte[0]);
        assertThat(handle(handler, "PUT", InternalProtocol.WRITES_PATH, "", Headers.of(), tombstone).status(), is(400));
        assertThat(engine.get(KEY), is(Optional.empty()));
    }

    @Test
    void aBatchOfWritesKeepsTheirExpiries() throws Exception {
        Record written = Record.expiring(6, utf8("y"), 1_700_000_003_000L);
        assertThat(handle(handler, "PUT", InternalProtocol.WRITES_PATH, "", Headers.of(), frames(true, utf8("b"), written)).status(), is(200));
        assertThat(engine.get(utf8("b")), is(Optional.of(written)));
    }

    @Test
    void readsTombstonesAsRecordsAndAbsentKeysAsAbsent() throws Exception {
        assertThat(writeOne(KEY, Record.tombstone(5)), is(WriteBatchCodec.STORED));
        assertThat(readOne(KEY), is(Optional.of(Record.tombstone(5))));
        assertThat(readOne(utf8("nope")), is(Optional.empty()));
    }

    @Test
    void anOlderRecordIsAcknowledgedButNotApplied() throws Exception {
        engine.apply(KEY, Record.value(100, utf8("newer")));
        assertThat("the answer is the kept record's timestamp", writeOne(KEY, Record.value(50, utf8("older"))), is(100L));
        assertThat(engine.get(KEY), is(Optional.of(Record.value(100, utf8("newer")))));
    }

    @Test
    void observesReplicatedTimestampsWithinTheClockBound() throws Exception {
        long ahead = HybridLogicalClock.timestampOf(WALL_MILLIS + 300, 0);
        assertThat(writeOne(KEY, Record.value(ahead, utf8("v"))), is(WriteBatchCodec.STORED));
        assertThat(clock.now(), greaterThan(ahead));
    }

    @Test
    void refusesATimestampFurtherAheadThanTheBoundAndDoesNotObserveIt() throws Exception {
        for (long forged : new long[] {Long.MAX_VALUE, HybridLogicalClock.timestampOf(WALL_MILLIS + 10_000, 0)}) {
            assertThat(writeOne(KEY, Record.value(forged, utf8("v"))), is(WriteBatchCodec.REFUSED_AHEAD));
        }
        assertThat(engine.get(KEY), is(Optional.empty()));
        assertThat(HybridLogicalClock.millisOf(clock.now()), is(WALL_MILLIS));
    }

    @Test
    void answersEachWriteOfABatchInItsOwnOrderWithRepeatsAndKeysInAnyOrder() throws Exception {
        engine.apply(utf8("b"), Record.value(100, utf8("newer")));
        byte[] batch = frames(true, utf8("z"), Record.value(5, utf8("x")), utf8("b"), Record.value(50, utf8("older")),
                utf8("a"), Record.tombstone(7), utf8("z"), Record.value(4, utf8("older in the batch")),
                utf8("z"), Record.value(6, utf8("newest in the batch")));
        Response put = handle(handler, "PUT", InternalProtocol.WRITES_PATH, "", Headers.of(), batch);
        assertThat(put.status(), is(200));
        long[] answers = WriteBatchCodec.decodeAnswers(((ResponseBody.Fixed) put.body()).bytes(), 5);
        assertThat(answers, equalTo(new long[] {WriteBatchCodec.STORED, 100, WriteBatchCodec.STORED, 5, WriteBatchCodec.STORED}));
        assertThat(engine.get(utf8("z")), is(Optional.of(Record.value(6, utf8("newest in the batch")))));
        assertThat(engine.get(utf8("b")), is(Optional.of(Record.value(100, utf8("newer")))));
        assertThat(engine.get(utf8("a")), is(Optional.of(Record.tombstone(7))));
    }

    @Test
    void aWriteOfABatchStampedBeyondTheClockBoundIsRefusedAloneAndNotObserved() throws Exception {
        long forged = HybridLogicalClock.timestampOf(WALL_MILLIS + 10_000, 0);
        byte[] batch = frames(true, utf8("a"), Record.value(5, utf8("x")), KEY, Record.value(forged, utf8("v")),
                utf8("c"), Record.value(6, utf8("y")));
        Response put = handle(handler, "PUT", InternalProtocol.WRITES_PATH, "", Headers.of(), batch);
        assertThat(put.status(), is(200));
        assertThat(WriteBatchCodec.decodeAnswers(((ResponseBody.Fixed) put.body()).bytes(), 3),
                equalTo(new long[] {WriteBatchCodec.STORED, WriteBatchCodec.REFUSED_AHEAD, WriteBatchCodec.STORED}));
        assertThat(engine.get(KEY), is(Optional.empty()));
        assertThat(engine.get(utf8("c")), is(Optional.of(Record.value(6, utf8("y")))));
        assertThat(HybridLogicalClock.millisOf(clock.now()), is(WALL_MILLIS));
    }

    @Test
    void aMalformedWriteBatchIs400AndStoresNothing() throws Exception {
        byte[] good = frames(true, utf8("a"), Record.value(5, utf8("x")), utf8("b"), Record.value(6, utf8("y")));
        List<byte[]> malformed = List.of(
                frames(false, utf8("a"), Record.value(5, utf8("x"))),            // no end marker
                java.util.Arrays.copyOf(good, good.length - 6),                   // cut inside the second write
                java.util.Arrays.copyOf(good, good.length + 3),                   // bytes after the end marker
                frames(true),                                                     // no write at all
                frames(true, new byte[0], Record.value(5, utf8("x"))),           // an empty key
                withInt(good, 0, Integer.MAX_VALUE),                              // a key longer than the body
                withInt(good, 4 + 1 + 8 + 1, -5),                                 // a negative value length
                withInt(good, 4 + 1 + 8 + 1, 1 << 27),                            // a value longer than the body
                manyWrites(WriteBatchCodec.RECORDS_MAX + 1));
        for (byte[] body : malformed) {
            Response put = handle(handler, "PUT", InternalProtocol.WRITES_PATH, "", Headers.of(), body);
            assertThat(put.status(), is(400));
        }
        assertThat(engine.get(utf8("a")), is(Optional.empty()));
        assertThat(engine.get(utf8("k0")), is(Optional.empty()));
        assertThat(handle(handler, "GET", InternalProtocol.WRITES_PATH, "", Headers.of(), new byte[0]).status(), is(405));
        assertThat(handle(handler, "PUT", InternalProtocol.WRITES_PATH, "", Headers.of(), manyWrites(WriteBatchCodec.RECORDS_MAX))
                .status(), is(200));
    }

    @Test
    void onlyTheBatchesOfReadsAndWritesRunOnTheEventLoop() {
        assertThat(handler.onLoop(head("PUT", InternalProtocol.WRITES_PATH)), is(true));
        assertThat(handler.onLoop(head("POST", InternalProtocol.READS_PATH)), is(true));
        assertThat(handler.onLoop(head("GET", InternalProtocol.WRITES_PATH)), is(false));
        assertThat(handler.onLoop(head("GET", InternalProtocol.DIGEST_PATH)), is(false));
        assertThat(handler.onLoop(head("POST", InternalProtocol.PAXOS_ACCEPT_PATH)), is(false));
        assertThat(handler.onLoop(head("GET", InternalProtocol.RANGE_PATH)), is(false));
        assertThat(handler.onLoop(head("PUT", InternalProtocol.WRITES_PATH, InternalApiHandler.ON_LOOP_BODY_BYTES_MAX)), is(true));
        assertThat(handler.onLoop(head("PUT", InternalProtocol.WRITES_PATH, InternalApiHandler.ON_LOOP_BODY_BYTES_MAX + 1)), is(false));
        assertThat("no declared length", handler.onLoop(head("PUT", InternalProtocol.WRITES_PATH, -1)), is(false));
    }

    @Test
    void aBatchStorageCannotTakeWithoutWaitingIsAnsweredOnTheExecutorInstead() throws Exception {
        List<Runnable> handedOver = new java.util.ArrayList<>();
        InternalApiHandler waiting = new InternalApiHandler(LocalReplicaTest.alwaysWouldBlock(engine), clock,
                new InternalAuth(TestAuth.SECRET, ClusterNode.parse(TestAuth.SELF).id(), TestAuth.TOPOLOGY, System::currentTimeMillis),
                new TopologyWatch(TestAuth.TOPOLOGY), null, TestAuth.skew(clock), new PaxosAcceptor(engine),
                new EpochGate(new MetadataCatchUp(new KnownMetadata()), EpochGate.CATCH_UP_WAIT_MAX), Runnable::run, handedOver::add);
        Record written = Record.value(6, utf8("y"));

        java.util.concurrent.CompletableFuture<Response> writes = waiting.handle(
                request("PUT", InternalProtocol.WRITES_PATH, "", Headers.of(), frames(true, utf8("b"), written))).toCompletableFuture();
        assertThat("nothing answered on the calling thread", writes.isDone(), is(false));
        assertThat(engine.get(utf8("b")), is(Optional.empty()));
        handedOver.removeFirst().run();
        assertThat(writes.join().status(), is(200));
        assertThat(engine.get(utf8("b")), is(Optional.of(written)));

        java.util.concurrent.CompletableFuture<Response> reads = waiting.handle(request("POST", InternalProtocol.READS_PATH, "",
                Headers.of(), ReadBatchCodec.encodeRequest(List.of(utf8("b"))))).toCompletableFuture();
        assertThat(reads.isDone(), is(false));
        handedOver.removeFirst().run();
        assertThat(ReadBatchCodec.decodeAnswers(((ResponseBody.Fixed) reads.join().body()).bytes(), 1).getFirst().found(),
                is(Optional.of(written)));
    }

    private static io.ringkv.http.server.HeadAdmission.Head head(String method, String path) {
        return head(method, path, 100);
    }

    private static io.ringkv.http.server.HeadAdmission.Head head(String method, String path, long contentLength) {
        return new io.ringkv.http.server.HeadAdmission.Head(method, path, "", Headers.of(), contentLength,
                new InetSocketAddress("127.0.0.1", 40000), Protocol.HTTP_2);
    }

    @Test
    void answersABatchOfReadsKeyByKeyAndRefusesAMalformedOne() throws Exception {
        engine.apply(utf8("a"), Record.value(5, utf8("x")));
        engine.apply(utf8("gone"), Record.tombstone(9));
        byte[] request = ReadBatchCodec.encodeRequest(List.of(utf8("gone"), utf8("absent"), utf8("a"), utf8("a")));
        Response reads = handle(handler, "POST", InternalProtocol.READS_PATH, "", Headers.of(), request);
        assertThat(reads.status(), is(200));
        List<ReadBatchCodec.Answer> answers = ReadBatchCodec.decodeAnswers(((ResponseBody.Fixed) reads.body()).bytes(), 4);
        assertThat(answers.stream().map(ReadBatchCodec.Answer::found).toList(), contains(Optional.of(Record.tombstone(9)),
                Optional.empty(), Optional.of(Record.value(5, utf8("x"))), Optional.of(Record.value(5, utf8("x")))));

        List<byte[]> malformed = List.of(
                java.util.Arrays.copyOf(request, request.length - 4),     // no end marker
                java.util.Arrays.copyOf(request, request.length + 1),     // a byte after it
                ReadBatchCodec.encodeRequest(List.of()),                  // no key
                ReadBatchCodec.encodeRequest(List.of(new byte[0])),       // an empty key
                withInt(request, 0, 1 << 30));                            // a key longer than the body
        for (byte[] body : malformed) {
            assertThat(handle(handler, "POST", InternalProtocol.READS_PATH, "", Headers.of(), body).status(), is(400));
        }
        byte[][] tooMany = new byte[ReadBatchCodec.KEYS_MAX + 1][];
        java.util.Arrays.fill(tooMany, utf8("a"));
        assertThat(handle(handler, "POST", InternalProtocol.READS_PATH, "", Headers.of(),
                ReadBatchCodec.encodeRequest(List.of(tooMany))).status(), is(400));
        assertThat(handle(handler, "GET", InternalProtocol.READS_PATH, "", Headers.of(), new byte[0]).status(), is(405));
    }

    /**
     * A batch of keys posted to the versions endpoint: each key's version, values and expiry left
     * out, a tombstone as it is; a malformed batch is a 400, another method a 405 naming both, and
     * an unsigned batch a 403 (what a cleanup asks an owner before it sends records).
     */
    @Test
    void answersABatchOfKeysWithTheirVersionsOnly() throws Exception {
        engine.apply(utf8("a"), Record.value(5, utf8("a value")));
        engine.apply(utf8("gone"), Record.tombstone(9));
        engine.apply(utf8("ttl"), Record.expiring(11, utf8("expiring value"), 4_000_000_000_000L));
        byte[] request = ReadBatchCodec.encodeRequest(List.of(utf8("gone"), utf8("absent"), utf8("a"), utf8("ttl")));
        Response versions = handle(handler, "POST", InternalProtocol.VERSIONS_PATH, "", Headers.of(), request);
        assertThat(versions.status(), is(200));
        List<ReadBatchCodec.Answer> answers = ReadBatchCodec.decodeAnswers(((ResponseBody.Fixed) versions.body()).bytes(), 4);
        assertThat(answers.stream().map(ReadBatchCodec.Answer::found).toList(), contains(Optional.of(Record.tombstone(9)),
                Optional.empty(), Optional.of(Record.value(5, new byte[0])), Optional.of(Record.value(11, new byte[0]))));

        for (byte[] body : List.of(java.util.Arrays.copyOf(request, request.length - 4), ReadBatchCodec.encodeRequest(List.of()),
                withInt(request, 0, 1 << 30))) {
            assertThat(handle(handler, "POST", InternalProtocol.VERSIONS_PATH, "", Headers.of(), body).status(), is(400));
        }
        byte[][] tooMany = new byte[ReadBatchCodec.KEYS_MAX + 1][];
        java.util.Arrays.fill(tooMany, utf8("a"));
        assertThat("at most a read batch's keys", handle(handler, "POST", InternalProtocol.VERSIONS_PATH, "", Headers.of(),
                ReadBatchCodec.encodeRequest(List.of(tooMany))).status(), is(400));
        Response put = handle(handler, "PUT", InternalProtocol.VERSIONS_PATH, "", Headers.of(), request);
        assertThat(put.status(), is(405));
        assertThat(put.headers().first("Allow"), is(Optional.of("GET, POST")));
        assertThat(send("POST", InternalProtocol.VERSIONS_PATH, "", Headers.of(), request).status(), is(403));
    }

    private static byte[] withInt(byte[] body, int offset, int value) {
        byte[] changed = body.clone();
        ByteBuffer.wrap(changed).putInt(offset, value);
        return changed;
    }

    private static byte[] manyWrites(int count) {
        Object[] keysAndRecords = new Object[2 * count];
        for (int i = 0; i < count; i++) {
            keysAndRecords[2 * i] = utf8("k" + i);
            keysAndRecords[2 * i + 1] = Record.value(9, utf8("v"));
        }
        return frames(true, keysAndRecords);
    }

    private static byte[] frames(boolean terminated, Object... keysAndRecords) {
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(1 << 16);
        for (int i = 0; i < keysAndRecords.length; i += 2) {
            RecordFrames.write(out, (byte[]) keysAndRecords[i], (Record) keysAndRecords[i + 1]);
        }
        if (terminated) {
            RecordFrames.writeEnd(out);
        }
        return java.util.Arrays.copyOf(out.array(), out.position());
    }

    @Test
    void rejectsMalformedRequestsWith400() throws Exception {
        assertThat(handle(handler, "GET", InternalProtocol.RANGE_PATH, "", Headers.of(), new byte[0]).status(), is(400));
        assertThat(handle(handler, "GET", InternalProtocol.RANGE_PATH, "start=!!", Headers.of(), new byte[0]).status(), is(400));
    }

    @Test
    void answers405WithAllowAnd404ForUnknownInternalPaths() throws Exception {
        engine.apply(KEY, Record.value(5, utf8("v")));
        Response post = handle(handler, "POST", InternalProtocol.WRITES_PATH, "", Headers.of(), new byte[0]);
        assertThat(post.status(), is(405));
        assertThat(post.headers().first("Allow"), is(Optional.of("PUT")));
        // Every read and write travels in a batch: the one-record endpoints of earlier versions are gone.
        assertThat(handle(handler, "GET", "/internal/v0/record", "key=" + InternalProtocol.encodeKey(KEY), Headers.of(), new byte[0])
                .status(), is(404));
        assertThat(handle(handler, "PUT", "/internal/v0/record", "key=" + InternalProtocol.encodeKey(KEY), Headers.of(), utf8("w"))
                .status(), is(404));
        assertThat(handle(handler, "PUT", "/internal/v0/records", "", Headers.of(), frames(true, KEY, Record.value(9, utf8("w"))))
                .status(), is(404));
        assertThat(engine.get(KEY), is(Optional.of(Record.value(5, utf8("v")))));
        Response rangePut = handle(handler, "PUT", InternalProtocol.RANGE_PATH, "start=", Headers.of(), new byte[0]);
        assertThat(rangePut.status(), is(405));
        assertThat(rangePut.headers().first("Allow"), is(Optional.of("GET")));
        assertThat(handle(handler, "POST", "/internal/v9/reads", "", Headers.of(), readsOf(KEY)).status(), is(404));
    }

    @Test
    void refusesRequestsWithoutAProofOfTheClusterSecret() throws Exception {
        Request unsigned = new Request("PUT", InternalProtocol.WRITES_PATH, "", Headers.of(),
                frames(true, KEY, Record.value(Long.MAX_VALUE, utf8("forged"))), new InetSocketAddress("127.0.0.1", 40000), Protocol.HTTP_1_1);
        assertThat(handler.handle(unsigned).toCompletableFuture().join().status(), is(403));
        assertThat(engine.get(KEY), is(Optional.empty()));
        assertThat("the clock did not observe the forged timestamp", clock.lastTimestamp() < Long.MAX_VALUE, is(true));
    }

    @Test
    void refusesAProofMadeWithAnotherSecret() throws Exception {
        InternalAuth impostor = TestAuth.auth(ClusterSecret.of("a guessed secret of some length"), TestAuth.TOPOLOGY);
        assertThat(signedBy(impostor, "PUT", InternalProtocol.WRITES_PATH, "", Headers.of(), frames(true, KEY, Record.value(9, utf8("v"))))
                .status(), is(403));
        assertThat(engine.get(KEY), is(Optional.empty()));
    }

    @Test
    void refusesASignedRequestWhoseTimestampBodyOrTargetWasChanged() throws Exception {
        byte[] body = frames(true, KEY, Record.value(9, utf8("v")));
        Map<String, String> signed = TestAuth.auth().sign(TestAuth.SELF, "PUT", InternalProtocol.WRITES_PATH, Map.of(), body);
        byte[] laterStamp = frames(true, KEY, Record.value(Long.MAX_VALUE, utf8("v")));
        assertThat(send("PUT", InternalProtocol.WRITES_PATH, "", headersOf(signed), laterStamp).status(), is(403));
        assertThat(send("PUT", InternalProtocol.WRITES_PATH, "", headersOf(signed), frames(true, KEY, Record.value(9, utf8("w"))))
                .status(), is(403));
        assertThat(send("PUT", InternalProtocol.WRITES_PATH, "x=1", headersOf(signed), body).status(), is(403));
        assertThat(engine.get(KEY), is(Optional.empty()));
        assertThat(send("PUT", InternalProtocol.WRITES_PATH, "", headersOf(signed), body).status(), is(200));
        assertThat(engine.get(KEY), is(Optional.of(Record.value(9, utf8("v")))));
    }

    @Test
    void refusesAProofOutsideTheTimeWindow() throws Exception {
        InternalAuth late = new InternalAuth(TestAuth.SECRET, "http://127.0.0.1:1", TestAuth.TOPOLOGY,
                () -> System.currentTimeMillis() - InternalAuth.WINDOW_MILLIS - 5_000);
        assertThat(signedBy(late, "POST", InternalProtocol.READS_PATH, "", Headers.of(), readsOf(KEY)).status(), is(403));
    }

    @Test
    void anAuthenticatedPeerWithAnotherNodeListGets409() throws Exception {
        InternalAuth elsewhere = TestAuth.auth(TestAuth.SECRET, "fedcba9876543210");
        Response response = signedBy(elsewhere, "POST", InternalProtocol.READS_PATH, "", Headers.of(), readsOf(KEY));
        assertThat(response.status(), is(409));
    }

    @Test
    void refusesAValidRequestAddressedToAnotherNode() throws Exception {
        byte[] body = frames(true, KEY, Record.value(9, utf8("v")));
        Map<String, String> forOther = TestAuth.auth().sign("http://127.0.0.1:2", "PUT", InternalProtocol.WRITES_PATH, Map.of(), body);
        Response refused = send("PUT", InternalProtocol.WRITES_PATH, "", headersOf(forOther), body);
        assertThat(refused.status(), is(403));
        assertThat(refused.headers().first(InternalAuth.AUTH_HEADER), is(Optional.empty()));
        assertThat(engine.get(KEY), is(Optional.empty()));
    }

    @Test
    void everyAnswerToAnAuthenticatedRequestCarriesAProofOfThatRequest() throws Exception {
        engine.apply(KEY, Record.value(7, utf8("v")));
        Map<String, String> signed = TestAuth.auth().sign(TestAuth.SELF, "POST", InternalProtocol.READS_PATH, Map.of(), readsOf(KEY));
        Response found = send("POST", InternalProtocol.READS_PATH, "", headersOf(signed), readsOf(KEY));
        java.net.http.HttpHeaders fields = clientView(found.headers());
        byte[] body = ((ResponseBody.Fixed) found.body()).bytes();
        AnswerAuth answers = TestAuth.auth().answers();
        assertThat(answers.verifies(InternalAuth.proofOf(signed), 200, fields, body), is(true));
        assertThat(answers.verifies(InternalAuth.proofOf(signed), 200, fields, utf8("w")), is(false));

        Response unsigned = send("POST", InternalProtocol.READS_PATH, "", Headers.of(), readsOf(KEY));
        assertThat(unsigned.status(), is(403));
        assertThat("a refusal carries no proof", unsigned.headers().first(InternalAuth.AUTH_HEADER), is(Optional.empty()));
    }

    /** The answer's fields as the client's {@link java.net.http.HttpHeaders} shows them. */
    private static java.net.http.HttpHeaders clientView(Headers headers) {
        Map<String, List<String>> fields = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < headers.size(); i++) {
            fields.computeIfAbsent(headers.name(i), name -> new java.util.ArrayList<>()).add(headers.value(i));
        }
        return java.net.http.HttpHeaders.of(fields, (name, value) -> true);
    }

    private static Headers headersOf(Map<String, String> fields) {
        Headers headers = Headers.of();
        fields.forEach(headers::add);
        return headers;
    }

    private Response send(String method, String path, String query, Headers headers, byte[] body) throws Exception {
        Request request = new Request(method, path, query, headers, body, new InetSocketAddress("127.0.0.1", 40000), Protocol.HTTP_1_1);
        return handler.handle(request).toCompletableFuture().join();
    }

    private Response signedBy(InternalAuth auth, String method, String path, String query, Headers fields, byte[] body) throws Exception {
        Map<String, String> plain = new java.util.TreeMap<>();
        for (String name : fields.names()) {
            plain.put(name, fields.first(name).orElseThrow());
        }
        Headers headers = headersOf(auth.sign(TestAuth.SELF, method, query.isEmpty() ? path : path + "?" + query, plain, body));
        return send(method, path, query, headers, body);
    }

    /** A peer's replication factor on a digest or versions request is a decimal number; anything else is a 400. */
    @Test
    void aMalformedReplicationFactorOnADigestOrVersionsRequestIs400() throws Exception {
        for (String rf : new String[] {"", "three", "-1", "+3", "1234567890", "3 "}) {
            String param = InternalProtocol.RF_PARAM + "=" + java.net.URLEncoder.encode(rf, StandardCharsets.UTF_8);
            Response digest = handle(handler, "GET", InternalProtocol.DIGEST_PATH, param, Headers.of(), new byte[0]);
            assertThat("digest, rf=" + rf, digest.status(), is(400));
            Response versions = handle(handler, "GET", InternalProtocol.VERSIONS_PATH,
                    InternalProtocol.BUCKETS_PARAM + "=AQ&" + param, Headers.of(), new byte[0]);
            assertThat("versions, rf=" + rf, versions.status(), is(400));
        }
        assertThat(handle(handler, "GET", InternalProtocol.DIGEST_PATH, InternalProtocol.RF_PARAM + "=3", Headers.of(),
                new byte[0]).status(), is(200));
    }

    @Test
    void streamsTheRangeWithTimestampsAndTombstones() throws Exception {
        engine.apply(utf8("a"), Record.value(1, utf8("1")));
        engine.apply(utf8("b"), Record.tombstone(2));
        engine.apply(utf8("c"), Record.value(3, utf8("3")));
        engine.apply(utf8("d"), Record.value(4, utf8("4")));
        String query = "start=" + InternalProtocol.encodeKey(utf8("b")) + "&end=" + InternalProtocol.encodeKey(utf8("d"));
        Map<String, String> signed = TestAuth.auth().sign(TestAuth.SELF, "GET", InternalProtocol.RANGE_PATH + "?" + query, Map.of(),
                new byte[0]);
        Response range = send("GET", InternalProtocol.RANGE_PATH, query, headersOf(signed), new byte[0]);
        assertThat(range.status(), is(200));
        assertThat(range.body(), instanceOf(ResponseBody.Streamed.class));
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        try (var source = ((ResponseBody.Streamed) range.body()).source()) {
            for (ByteBuffer chunk = source.next(); chunk != null; chunk = source.next()) {
                wire.write(chunk.array(), chunk.arrayOffset() + chunk.position(), chunk.remaining());
            }
        }
        java.io.InputStream payload = TestAuth.auth().answers().segments(ClusterNode.parse(TestAuth.SELF),
                InternalAuth.proofOf(signed), new ByteArrayInputStream(wire.toByteArray()), RecordFrameSource.CHUNK_BYTES_MAX,
                new RejectedAnswers());
        List<Map.Entry<byte[], Record>> entries = RecordFramesTest.decodeAll(payload);
        assertThat(entries.stream().map(Map.Entry::getValue).toList(), contains(Record.tombstone(2), Record.value(3, utf8("3"))));
    }

    /** Writes one record in a batch of its own; returns the handler's answer for it ({@link WriteBatchCodec}). */
    private long writeOne(byte[] key, Record record) throws Exception {
        Response put = handle(handler, "PUT", InternalProtocol.WRITES_PATH, "", Headers.of(), frames(true, key, record));
        assertThat(put.status(), is(200));
        return WriteBatchCodec.decodeAnswers(((ResponseBody.Fixed) put.body()).bytes(), 1)[0];
    }

    /** A batch of one frame written field by field, so that a test can send what {@link RecordFrames} would not write. */
    private static byte[] frame(byte[] key, long timestamp, int flags, long expiresAt, byte[] value) {
        ByteBuffer out = ByteBuffer.allocate(64 + key.length + value.length);
        out.putInt(key.length).put(key).putLong(timestamp).put((byte) flags);
        if ((flags & RecordFrames.FLAG_EXPIRES) != 0) {
            out.putLong(expiresAt);
        }
        out.putInt(value.length).put(value);
        RecordFrames.writeEnd(out);
        return java.util.Arrays.copyOf(out.array(), out.position());
    }

    /** A read batch of these keys. */
    private static byte[] readsOf(byte[]... keys) {
        return ReadBatchCodec.encodeRequest(List.of(keys));
    }

    /** Reads one key in a batch of its own; returns the handler's answer for it. */
    private Optional<Record> readOne(byte[] key) throws Exception {
        Response reads = handle(handler, "POST", InternalProtocol.READS_PATH, "", Headers.of(), readsOf(key));
        assertThat(reads.status(), is(200));
        ReadBatchCodec.Answer answer = ReadBatchCodec.decodeAnswers(((ResponseBody.Fixed) reads.body()).bytes(), 1).getFirst();
        assertThat("not deferred", answer.deferred(), is(false));
        return answer.found();
    }

    /** Sends a request signed with the test secret, as a peer would. */
    private static Response handle(InternalApiHandler handler, String method, String path, String query,
                                   Headers headers, byte[] body) throws Exception {
        return handler.handle(request(method, path, query, headers, body)).toCompletableFuture().join();
    }

    /** A request signed as a peer would sign it. */
    private static Request request(String method, String path, String query, Headers headers, byte[] body) {
        Map<String, String> fields = new java.util.TreeMap<>();
        for (String name : headers.names()) {
            fields.put(name, headers.first(name).orElseThrow());
        }
        Headers signed = headersOf(TestAuth.auth().sign(TestAuth.SELF, method, query.isEmpty() ? path : path + "?" + query, fields, body));
        return new Request(method, path, query, signed, body, new InetSocketAddress("127.0.0.1", 40000), Protocol.HTTP_1_1);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

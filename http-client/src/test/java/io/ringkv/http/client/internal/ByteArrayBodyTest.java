package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.Headers;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ByteArrayBodyTest {

    private static byte[] randomBytes(int size) {
        byte[] bytes = new byte[size];
        new Random(size).nextBytes(bytes);
        return bytes;
    }

    /** Appends {@code body} in pieces of {@code piece} bytes, then completes. */
    private static byte[] collect(ByteArrayBody subscriber, byte[] body, int piece) throws Exception {
        for (int offset = 0; offset < body.length; offset += piece) {
            ByteBuffer buffer = ByteBuffer.wrap(body, offset, Math.min(piece, body.length - offset));
            subscriber.append(buffer);
            assertThat("the piece is consumed", buffer.hasRemaining(), is(false));
        }
        subscriber.onComplete();
        return subscriber.getBody().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private static ResponseHead head(String... fields) {
        Headers headers = new Headers();
        for (int i = 0; i < fields.length; i += 2) {
            headers.add(fields[i], fields[i + 1]);
        }
        return new ResponseHead(200, headers, HttpClient.Version.HTTP_1_1);
    }

    @Test
    void aBodyOfTheDeclaredLengthArrivesWhole() throws Exception {
        byte[] body = randomBytes(1024 * 1024 + 7);
        assertThat(collect(ByteArrayBody.forHead(head("Content-Length", String.valueOf(body.length))), body, 65536),
                is(body));
    }

    @Test
    void withoutALengthTheArrayGrowsAndIsTrimmed() throws Exception {
        byte[] body = randomBytes(3 * ByteArrayBody.INITIAL_BYTES + 5);
        assertThat(collect(ByteArrayBody.forHead(head()), body, 1000), is(body));
    }

    @Test
    void aDeclaredLengthBeyondThePresizeBoundAllocatesOnlyWhatArrives() throws Exception {
        // A length header alone may not make the client allocate gigabytes; what arrives is kept.
        byte[] body = randomBytes(100_000);
        ByteArrayBody subscriber = new ByteArrayBody(50L * 1024 * 1024 * 1024);
        assertThat(collect(subscriber, body, 8192), is(body));
    }

    @Test
    void aBodyWithoutALengthGoesOnInFurtherArraysWithoutMovingWhatArrived() throws Exception {
        byte[] body = randomBytes(1024 * 1024 + 5);
        ByteArrayBody subscriber = new ByteArrayBody(-1);
        for (int offset = 0; offset < body.length; offset += 4096) {
            subscriber.append(ByteBuffer.wrap(body, offset, Math.min(4096, body.length - offset)));
        }
        // Each new array is as large as all before it: few arrays, none copied while arriving.
        assertThat(subscriber.arraysHeld(), is(8));
        subscriber.onComplete();
        assertThat(subscriber.getBody().toCompletableFuture().get(5, TimeUnit.SECONDS), is(body));
    }

    @Test
    void aDeclaredLengthAboveThePresizeBoundEndsInAnArrayOfTheRemainder() throws Exception {
        byte[] body = randomBytes(ByteArrayBody.PRESIZED_BYTES_MAX + 70_000);
        ByteArrayBody subscriber = new ByteArrayBody(body.length);
        for (int offset = 0; offset < body.length; offset += 65_537) { // pieces straddle the arrays' ends
            subscriber.append(ByteBuffer.wrap(body, offset, Math.min(65_537, body.length - offset)));
        }
        assertThat("the presized array, then one for the declared rest", subscriber.arraysHeld(), is(2));
        subscriber.onComplete();
        assertThat(subscriber.getBody().toCompletableFuture().get(5, TimeUnit.SECONDS), is(body));
    }

    @Test
    void aBodyOfTheDeclaredLengthWithinTheBoundIsOneArray() throws Exception {
        byte[] body = randomBytes(300_000);
        ByteArrayBody subscriber = new ByteArrayBody(body.length);
        subscriber.append(ByteBuffer.wrap(body));
        assertThat(subscriber.arraysHeld(), is(1));
        subscriber.onComplete();
        assertThat(subscriber.getBody().toCompletableFuture().get(5, TimeUnit.SECONDS), is(body));
    }

    @Test
    void moreBytesThanDeclaredAreKeptToo() throws Exception {
        byte[] body = randomBytes(50_000);
        assertThat(collect(new ByteArrayBody(10_000), body, 4096), is(body));
    }

    @Test
    void anEmptyBodyIsAnEmptyArray() throws Exception {
        assertThat(collect(ByteArrayBody.forHead(head("Content-Length", "1048576")), new byte[0], 1).length, is(0));
    }

    @Test
    void piecesDeliveredAsOnNextAreCollectedInOrder() throws Exception {
        byte[] body = randomBytes(30_000);
        ByteArrayBody subscriber = new ByteArrayBody(-1);
        subscriber.onNext(List.of(ByteBuffer.wrap(body, 0, 10_000), ByteBuffer.wrap(body, 10_000, 5_000)));
        subscriber.append(ByteBuffer.wrap(body, 15_000, 15_000));
        subscriber.onComplete();
        assertThat(subscriber.getBody().toCompletableFuture().get(), is(body));
    }

    @Test
    void aFailureFailsTheBody() {
        ByteArrayBody subscriber = new ByteArrayBody(100);
        subscriber.append(ByteBuffer.wrap(new byte[10]));
        subscriber.onError(new IOException("connection reset"));
        ExecutionException thrown = assertThrows(ExecutionException.class,
                () -> subscriber.getBody().toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertThat(thrown.getCause(), instanceOf(IOException.class));
    }

    /** An attempt whose exchange has no body of its own (a proxy's refusal stands in). */
    private static Interim interim(ResponseHead head) {
        ExchangeRequest request = ExchangeRequest.of(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:1/")).build(),
                HttpClient.Version.HTTP_1_1);
        return new Interim(request, head, new ProxyRefusal(head), null);
    }

    @Test
    void theClientTakesItForTheJdksByteArrayHandlerOnly() {
        Interim interim = interim(head("Content-Length", "5"));
        assertThat(RingClient.subscriberFor(BodyHandlers.ofByteArray(), interim), instanceOf(ByteArrayBody.class));
        assertThat(RingClient.subscriberFor(BodyHandlers.ofString(), interim), not(instanceOf(ByteArrayBody.class)));
        assertThat(RingClient.subscriberFor(BodyHandlers.ofInputStream(), interim), not(instanceOf(ByteArrayBody.class)));
    }

    @Test
    void aLengthThatIsNoNumberOnlyLosesThePresize() throws Exception {
        byte[] body = randomBytes(40_000);
        assertThat(collect(ByteArrayBody.forHead(head("Content-Length", "x1")), body, 3000), is(body));
    }
}

package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The compatibility suite against ringkv's client, plus what only ours guarantees. */
class RingClientCompatibilityTest extends HttpClientCompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder() {
        return RingHttpClient.newBuilder();
    }

    /**
     * A body handler that returns no subscriber fails the call with a NullPointerException. The
     * JDK's client (25) does so too in most runs, but not always: in one full run its call never
     * completed, so this is ours only.
     */
    @Test
    void aBodyHandlerThatReturnsNullFailsTheCall() throws Exception {
        HttpClient client = client();
        HttpRequest request = HttpRequest.newBuilder(uri("/bytes?n=5")).build();
        HttpResponse.BodyHandler<String> none = info -> null;
        ExecutionException nothing = assertThrows(ExecutionException.class,
                () -> client.sendAsync(request, none).get(30, TimeUnit.SECONDS));
        assertThat(nothing.getCause(), instanceOf(NullPointerException.class));
        assertThat(client.send(request, BodyHandlers.ofString()).body().length(), is(5));
    }
}

package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.client.RingHttpClient;
import java.net.http.HttpClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClientBuilderTest {

    @Test
    void rejectsWhatTheJdkBuilderRejects() {
        RingHttpClient.Builder builder = RingHttpClient.newBuilder();
        assertThrows(IllegalArgumentException.class, () -> builder.connectTimeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> builder.priority(0));
        assertThrows(NullPointerException.class, () -> builder.executor(null));
    }

    @Test
    void rejectsOutOfRangeExtensions() {
        RingHttpClient.Builder builder = RingHttpClient.newBuilder();
        assertThrows(IllegalArgumentException.class, () -> builder.connectionsPerHost(0));
        assertThrows(IllegalArgumentException.class, () -> builder.http2StreamWindowBytes(65_534));
        assertThrows(IllegalArgumentException.class, () -> builder.idleTimeout(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> builder.syncSendSpin(Duration.ofNanos(-1)));
        assertThrows(IllegalArgumentException.class, () -> builder.syncSendSpin(Duration.ofMillis(2)));
        assertThrows(NullPointerException.class, () -> builder.syncSendSpin(null));
        builder.syncSendSpin(Duration.ZERO);
    }

    @Test
    void reportsItsSettingsLikeTheJdkClient() {
        HttpClient client = RingHttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3))
                .followRedirects(HttpClient.Redirect.NORMAL).connectionsPerHost(2).build();
        try {
            assertThat(client.connectTimeout().orElseThrow(), is(Duration.ofSeconds(3)));
            assertThat(client.followRedirects(), is(HttpClient.Redirect.NORMAL));
            assertThat(client.version(), is(HttpClient.Version.HTTP_2));
            assertThat(client.executor().isPresent(), is(false));
            assertThat(client.cookieHandler().isPresent(), is(false));
        } finally {
            client.close();
        }
        assertThat(client.isTerminated(), is(true));
    }

    @Test
    void serverPushIsAdvertisedUnlessTurnedOff() {
        ClientBuilder builder = new ClientBuilder();
        assertThat(NetTransport.http2Config(builder.config().extensions()).local().enablePush(), is(true));
        builder.http2ServerPush(false);
        assertThat(NetTransport.http2Config(builder.config().extensions()).local().enablePush(), is(false));
    }
}

package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;

/** jdk.http.maxHeaderSize read as the JDK's client reads it. */
class ResponseHeadLimitsTest {

    @Test
    void unsetIs384KiB() {
        assertThat(ResponseHeadLimits.parse(null), is(384 * 1024));
    }

    @Test
    void zeroOrLessMeansNoBound() {
        assertThat(ResponseHeadLimits.parse("0"), is(Integer.MAX_VALUE));
        assertThat(ResponseHeadLimits.parse("-5"), is(Integer.MAX_VALUE));
    }

    @Test
    void aPositiveValueIsTheBound() {
        assertThat(ResponseHeadLimits.parse(" 65536 "), is(65536));
    }

    @Test
    void aValueThatIsNotANumberFallsBackToTheDefault() {
        assertThat(ResponseHeadLimits.parse("lots"), is(384 * 1024));
    }

    @Test
    void http2AdvertisesTheSameBound() {
        assertThat(NetTransport.http2Config(new ClientBuilder().config().extensions()).local().maxHeaderListBytes(),
                is((long) ResponseHeadLimits.BYTES));
    }
}

package io.ringkv.node.dashboard;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which Host values the dashboard answers to. */
class DashboardHostsTest {

    @Test
    void aNodeOnLoopbackAnswersToItsAddressLocalhostAndAnyIpLiteral() {
        DashboardHosts hosts = DashboardHosts.of("127.0.0.1", List.of());
        for (String host : List.of("127.0.0.1", "127.0.0.1:8080", "localhost", "localhost:8080", "LocalHost.", "[::1]:8080",
                "10.0.0.5:8080", "[fe80::1]")) {
            assertThat(host, hosts.allows(host), is(true));
        }
        for (String host : List.of("evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.nip.io",
                "256.0.0.1", "1.2.3", "[evil.example]", "[::1", "", ":8080")) {
            assertThat(host, hosts.allows(host), is(false));
        }
        assertThat("no Host", hosts.allows(null), is(false));
    }

    @Test
    void aNodeUnderADnsNameAnswersToThatNameButNotToLocalhost() {
        DashboardHosts hosts = DashboardHosts.of("node-1.cluster.internal", List.of());
        assertThat(hosts.allows("Node-1.Cluster.Internal:8080"), is(true));
        assertThat(hosts.allows("localhost:8080"), is(false));
        assertThat(hosts.names(), is(java.util.Set.of("node-1.cluster.internal")));
    }

    @Test
    void aWildcardOrIpv6LoopbackBindAnswersToLocalhost() {
        assertThat(DashboardHosts.of("0.0.0.0", List.of()).allows("localhost"), is(true));
        assertThat(DashboardHosts.of("::1", List.of()).allows("localhost:9000"), is(true));
        assertThat(DashboardHosts.of("::", List.of()).allows("localhost"), is(true));
        assertThat(DashboardHosts.of("192.168.1.4", List.of()).allows("localhost"), is(false));
    }

    @Test
    void namesByFlagAreAllowedAndMustBeHostNames() {
        DashboardHosts hosts = DashboardHosts.of("10.0.0.5", List.of("ringkv.example.org", " Ops.Example.ORG. "));
        assertThat(hosts.allows("ringkv.example.org:443"), is(true));
        assertThat(hosts.allows("ops.example.org"), is(true));
        assertThat(hosts.allows("other.example.org"), is(false));
        for (String bad : List.of("http://ringkv.example.org", "ringkv.example.org:8080", "", "*", "a b", "-x.example")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DashboardHosts.of("10.0.0.5", List.of(bad)));
            assertThat(e.getMessage(), containsString("not a host name"));
        }
    }
}

package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UpAddressesTest {
    private static final List<String> THREE = List.of("http://127.0.0.1:9001", "http://127.0.0.1:9002", "http://127.0.0.1:9003");

    @TempDir
    Path dir;

    @Test
    void whatIsWrittenIsReadBackInOrder() throws Exception {
        assertThat(UpAddresses.read(dir), is(Optional.empty()));
        UpAddresses.write(dir, THREE);
        assertThat(UpAddresses.read(dir), is(Optional.of(THREE)));
        assertThat(UpAddresses.ports(THREE), is(List.of(9001, 9002, 9003)));
    }

    @Test
    void aDamagedFileIsAnErrorNotAnEmptyCluster() throws Exception {
        Files.writeString(dir.resolve(UpAddresses.NAME), "not a url\n");
        assertThat(assertThrows(IOException.class, () -> UpAddresses.read(dir)).getMessage(), containsString("not a URL"));
        Files.writeString(dir.resolve(UpAddresses.NAME), "ftp://127.0.0.1:21\n");
        assertThat(assertThrows(IOException.class, () -> UpAddresses.read(dir)).getMessage(), containsString("not an http(s)"));
        Files.writeString(dir.resolve(UpAddresses.NAME), "\n");
        assertThat(assertThrows(IOException.class, () -> UpAddresses.read(dir)).getMessage(), containsString("is empty"));
    }

    @Test
    void theSameFlagsFitTheRecordedCluster() {
        assertThat(UpAddresses.mismatch(THREE, 3, "127.0.0.1", false, null, dir), is(Optional.empty()));
        assertThat(UpAddresses.mismatch(THREE, 3, "127.0.0.1", false, 9001, dir), is(Optional.empty()));
    }

    @Test
    void eachDifferenceIsNamed() {
        assertThat(UpAddresses.mismatch(THREE, 4, "127.0.0.1", false, null, dir).orElseThrow(),
                containsString("holds a cluster of 3 node(s), started by an earlier up (up.urls), not 4"));
        assertThat(UpAddresses.mismatch(THREE, 3, "127.0.0.2", false, null, dir).orElseThrow(),
                containsString("listen on 127.0.0.1, not 127.0.0.2"));
        assertThat(UpAddresses.mismatch(THREE, 3, "127.0.0.1", true, null, dir).orElseThrow(),
                containsString("serve http, not https (--tls)"));
        assertThat(UpAddresses.mismatch(THREE, 3, "127.0.0.1", false, 9101, dir).orElseThrow(),
                containsString("node-1 listens on port 9001, not 9101"));
    }
}

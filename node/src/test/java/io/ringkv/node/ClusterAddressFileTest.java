package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.cluster.ClusterNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterAddressFileTest {
    @TempDir
    Path dir;

    @Test
    void theFirstStartRecordsTheAddressAndTheSameAddressStartsAgain() throws Exception {
        ClusterAddressFile.claim(dir, ClusterNode.parse("http://127.0.0.1:8080"));
        ClusterAddressFile.claim(dir, ClusterNode.parse("http://127.0.0.1:8080"));
        assertThat(Files.readString(dir.resolve(ClusterAddressFile.NAME), StandardCharsets.UTF_8), is("http://127.0.0.1:8080\n"));
    }

    @Test
    void anotherPortIsRefusedWithWhatToDoAndTheRecordKept() throws Exception {
        ClusterAddressFile.claim(dir, ClusterNode.parse("http://127.0.0.1:8080"));
        NodeStartException refused = assertThrows(NodeStartException.class,
                () -> ClusterAddressFile.claim(dir, ClusterNode.parse("http://127.0.0.1:8081")));
        assertThat(refused.getMessage(), containsString("holds the data of the cluster member at http://127.0.0.1:8080, not "
                + "http://127.0.0.1:8081"));
        assertThat(refused.getMessage(), containsString("--replace http://127.0.0.1:8080"));
        assertThat(Files.readString(dir.resolve(ClusterAddressFile.NAME), StandardCharsets.UTF_8), is("http://127.0.0.1:8080\n"));
    }

    @Test
    void anotherHostIsRefused() throws Exception {
        ClusterAddressFile.claim(dir, ClusterNode.parse("http://127.0.0.1:8080"));
        assertThrows(NodeStartException.class, () -> ClusterAddressFile.claim(dir, ClusterNode.parse("http://127.0.0.2:8080")));
    }

    @Test
    void turningTlsOnIsRefusedSinceTheMetadataNamesMembersWithTheirScheme() throws Exception {
        ClusterAddressFile.claim(dir, ClusterNode.parse("http://127.0.0.1:8080"));
        NodeStartException refused = assertThrows(NodeStartException.class,
                () -> ClusterAddressFile.claim(dir, ClusterNode.parse("https://127.0.0.1:8080")));
        assertThat(refused.getMessage(), containsString("cannot turn TLS on or off in place"));
    }
}

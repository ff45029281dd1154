package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;

import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.TokenFile;
import io.ringkv.ops.BearerToken;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node started with SIGHUP ignored, as {@code nohup} starts it: the JVM keeps the signal ignored
 * and accepts a Java handler without complaint, which then never runs. Before this was checked, the
 * node said {@code kill -HUP <pid> reloads the token file}, and a SIGHUP changed nothing; it must
 * say instead that SIGHUP cannot reload the file.
 */
@Timeout(120)
class HangUpIgnoredIT {
    @TempDir
    Path dir;

    @Test
    void aNodeStartedUnderNohupSaysSighupCannotReloadItsTokenFile() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/nohup")), "skipped: /usr/bin/nohup is missing");
        Path tokens = dir.resolve("auth.tokens");
        TokenFile.add(tokens, new Grant("app", AccessScope.parseList("read"), null), BearerToken.sha256(BearerToken.generate()));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process node = new ProcessBuilder(List.of("/usr/bin/nohup", java, "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "serve", "--port", "0", "--data", dir.resolve("data").toString(),
                "--auth-file", tokens.toString(), "--warm-up", "PT0S"))
                .redirectErrorStream(true).start();
        StringBuilder log = new StringBuilder();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                log.append(line).append('\n');
                if (line.contains(" serving (")) {
                    break;
                }
            }
        } finally {
            node.destroy();
            if (!node.waitFor(30, TimeUnit.SECONDS)) {
                node.destroyForcibly();
            }
        }
        assertThat(log.toString(), containsString("SIGHUP is ignored in this process"));
        assertThat(log.toString(), not(containsString("reloads the token file")));
    }
}

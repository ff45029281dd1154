package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.TokenFile;
import io.ringkv.node.access.TokenRegistry;
import io.ringkv.ops.BearerToken;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ringkv token}, {@code up --auth}'s admin token and {@code serve --auth-file}: tokens are
 * printed once and stored hashed; files and flags that cannot work are usage errors (exit 2)
 * naming the line or the problem.
 */
class TokenCommandTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    @Test
    void printsANewTokenOnceAndStoresItsHash() throws Exception {
        Path file = dir.resolve("auth.tokens");
        assertThat(run("token", "--auth-file", file.toString(), "--name", "app", "--scopes", "read,write"), is(0));
        String token = out.toString().strip();
        assertThat(BearerToken.wellFormed(token), is(true));
        assertThat(err.toString(), allOf(containsString("added 'app' (read,write)"), containsString("kill -HUP")));
        assertThat(Files.readString(file), not(containsString(token)));
        assertThat(TokenRegistry.load(file).find(token).orElseThrow().scopes(), is(EnumSet.of(AccessScope.READ, AccessScope.WRITE)));

        assertThat(run("token", "--auth-file", file.toString(), "--name", "tenant", "--scopes", "read", "--prefix", "t%2F"), is(0));
        assertThat(TokenFile.read(file), hasSize(2));
    }

    @Test
    void aTokenMadeToExpireCarriesItsInstant() throws Exception {
        Path file = dir.resolve("auth.tokens");
        Instant before = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        assertThat(run("token", "--auth-file", file.toString(), "--name", "ci", "--scopes", "read", "--expires-in", "PT12H"), is(0));
        Instant expiresAt = TokenRegistry.load(file).find(out.toString().strip()).orElseThrow().expiresAt();
        assertThat(expiresAt.isBefore(before.plus(Duration.ofHours(12))), is(false));
        assertThat(expiresAt.isAfter(Instant.now().plus(Duration.ofHours(12))), is(false));
        assertThat(err.toString(), containsString("added 'ci' (read, expires " + expiresAt + ")"));
        assertThat(Files.readString(file), containsString("expires=" + expiresAt));

        assertThat(run("token", "--auth-file", file.toString(), "--name", "never", "--scopes", "read", "--expires-in", "-P1D"),
                is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--expires-in must be a positive duration"));
        assertThat(run("token", "--auth-file", file.toString(), "--name", "never", "--scopes", "read", "--expires-in", "90d"),
                is(Main.EXIT_USAGE));
        assertThat(TokenFile.read(file), hasSize(1));
    }

    @Test
    void refusesWhatCannotWork() throws Exception {
        Path file = dir.resolve("auth.tokens");
        assertThat(run("token", "--auth-file", file.toString(), "--name", "app", "--scopes", "read"), is(0));
        assertThat(run("token", "--auth-file", file.toString(), "--name", "app", "--scopes", "read"), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("a token named 'app' is already there"));
        assertThat(run("token", "--auth-file", file.toString(), "--name", "b", "--scopes", "read,delete"), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("unknown scope 'delete'"));
        assertThat(run("token", "--auth-file", file.toString(), "--name", "c", "--scopes", "admin", "--prefix", "t"),
                is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--prefix cannot go with the admin scope"));
        assertThat(run("token", "--auth-file", file.toString(), "--name", "with space", "--scopes", "read"), is(Main.EXIT_USAGE));
        assertThat(TokenFile.read(file), hasSize(1));
    }

    @Test
    void upMakesANewAdminTokenEachTimeAndKeepsTheOthers() throws Exception {
        Path file = dir.resolve("auth.tokens");
        String first = UpCommand.newAdminToken(file);
        assertThat(run("token", "--auth-file", file.toString(), "--name", "app", "--scopes", "read"), is(0));
        String second = UpCommand.newAdminToken(file);
        TokenRegistry tokens = TokenRegistry.load(file);
        assertThat(tokens.find(first).isPresent(), is(false));
        assertThat(tokens.find(second).orElseThrow().scopes(), is(EnumSet.allOf(AccessScope.class)));
        assertThat(tokens.size(), is(2));
    }

    @Test
    void serveRefusesABadTokenFileNamingItsLine() throws Exception {
        Path file = Files.writeString(dir.resolve("auth.tokens"), "# tokens\nops admin sha256:" + "00".repeat(32) + "\napp reed x\n");
        assertThat(serve("--auth-file", file.toString()), is(Main.EXIT_USAGE));
        assertThat(err.toString(), allOf(containsString("--auth-file " + file + " line 3"), containsString("unknown scope 'reed'")));
    }

    @Test
    void serveRefusesAMissingTokenFile() {
        Path missing = dir.resolve("missing.tokens");
        assertThat(serve("--auth-file", missing.toString()), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--auth-file " + missing + ": no such file"));
    }

    @Test
    void statusRefusesATokenThatCannotBeSent() {
        assertThat(run("status", "--node", "http://127.0.0.1:9", "--token", "two words"), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--token"));
    }

    /** Runs serve with these flags; none of the tests gets as far as starting a node. */
    private int serve(String... flags) {
        List<String> args = new ArrayList<>(List.of("serve", "--port", "7001", "--data", dir.resolve("data").toString()));
        args.addAll(List.of(flags));
        return run(args.toArray(String[]::new));
    }
}

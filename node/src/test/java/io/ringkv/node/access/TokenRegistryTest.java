package io.ringkv.node.access;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.ops.BearerToken;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding a token's grant, and reloads that swap the whole set or nothing. */
class TokenRegistryTest {
    @TempDir
    Path dir;

    @Test
    void findsTheGrantOfAKnownTokenOnly() throws Exception {
        Path file = dir.resolve("auth.tokens");
        String token = BearerToken.generate();
        TokenFile.add(file, new Grant("app", EnumSet.of(AccessScope.READ), null), BearerToken.sha256(token));
        TokenRegistry registry = TokenRegistry.load(file);
        assertThat(registry.find(token).map(Grant::name), is(Optional.of("app")));
        assertThat(registry.find(token + "x"), is(Optional.empty()));
        assertThat(registry.find(BearerToken.generate()), is(Optional.empty()));
    }

    @Test
    void aReloadSwapsTheSetOrKeepsItWhenTheFileIsBad() throws Exception {
        Path file = dir.resolve("auth.tokens");
        String first = BearerToken.generate();
        TokenFile.add(file, new Grant("first", EnumSet.of(AccessScope.READ), null), BearerToken.sha256(first));
        TokenRegistry registry = TokenRegistry.load(file);

        Files.writeString(file, "first read sha256:nothex\n");
        assertThat(registry.reload(), is(false));
        assertThat(registry.find(first).isPresent(), is(true));

        Files.delete(file);
        assertThat(registry.reload(), is(false));
        assertThat(registry.find(first).isPresent(), is(true));

        String second = BearerToken.generate();
        TokenFile.add(file, new Grant("second", EnumSet.of(AccessScope.READ), null), BearerToken.sha256(second));
        assertThat(registry.reload(), is(true));
        assertThat(registry.find(first).isPresent(), is(false));
        assertThat(registry.find(second).isPresent(), is(true));
        assertThat(registry.size(), is(1));
    }

    @Test
    void generatedTokensAre256RandomBitsInBearerSyntax() {
        String token = BearerToken.generate();
        assertThat(token.matches("rkv_[A-Za-z0-9_-]{43}"), is(true));
        assertThat(BearerToken.wellFormed(token), is(true));
        assertThat(token.equals(BearerToken.generate()), is(false));
    }
}

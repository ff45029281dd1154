package io.ringkv.node.access;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.ops.BearerToken;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The token file's format: what reads, what is refused (with its line), and how tokens are added. */
class TokenFileTest {
    private static final String HASH = "sha256:" + "ab".repeat(32);
    private static final String OTHER_HASH = "sha256:" + "cd".repeat(32);

    @TempDir
    Path dir;

    @Test
    void readsTokensSkippingCommentsAndBlankLines() throws Exception {
        List<StoredToken> tokens = TokenFile.parse("""
                # a comment
                app  read,write  %s

                \ttenant-a\tread\t%s\tprefix=tenant-a%%2F\r
                """.formatted(HASH, OTHER_HASH), "tokens");
        assertThat(tokens, hasSize(2));
        assertThat(tokens.get(0).grant().name(), is("app"));
        assertThat(tokens.get(0).grant().scopes(), is(EnumSet.of(AccessScope.READ, AccessScope.WRITE)));
        assertThat(tokens.get(0).grant().prefix(), nullValue());
        assertThat(tokens.get(0).line(), is(2));
        assertThat(tokens.get(1).grant().prefix(), is(KeyPrefix.parse("tenant-a/")));
        assertThat(tokens.get(1).line(), is(4));
    }

    @Test
    void readsCertificateLinesBesideTokens() throws Exception {
        AccessEntries entries = TokenFile.parseEntries("""
                app  read,write  %s
                reports  read  cert:reports.example.org
                batch  read,write  cert:batch@example.org  prefix=jobs%%2F
                """.formatted(HASH), "tokens");
        assertThat(entries.tokens(), hasSize(1));
        assertThat(entries.certificates(), hasSize(2));
        assertThat(entries.certificates().get(0).identity(), is("reports.example.org"));
        assertThat(entries.certificates().get(0).grant().scopes(), is(EnumSet.of(AccessScope.READ)));
        assertThat(entries.certificates().get(1).grant().prefix(), is(KeyPrefix.parse("jobs/")));
        assertThat(entries.certificates().get(1).line(), is(3));
        assertThat(TokenFile.parse("reports  read  cert:reports.example.org\n", "tokens"), hasSize(0));
    }

    @Test
    void anIdentityOnTwoLinesIsRefused() {
        TokenFileException e = assertThrows(TokenFileException.class, () -> TokenFile.parseEntries(
                "a read cert:app.example.org\nb read,write cert:app.example.org\n", "auth.tokens"));
        assertThat(e.getMessage(), allOf(containsString("auth.tokens line 2: "),
                containsString("identity 'app.example.org' is already on line 1")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "app read cert:|cert: must be followed by a certificate's subject CN",
            "app read cert:CERTX|cert: must be followed by a certificate's subject CN",
            "ok read cert:other|the name 'ok' is already used on line 2",
            "app read,admin cert:a prefix=a|both a key prefix and the admin scope"})
    void aBadCertificateLineIsRefusedWithItsNumber(String line, String reason) {
        TokenFileException e = assertThrows(TokenFileException.class,
                () -> TokenFile.parse("# tokens\nok read " + OTHER_HASH + "\n" + line.replace("CERTX", "x".repeat(256)) + "\n",
                        "auth.tokens"));
        assertThat(e.getMessage(), allOf(containsString("auth.tokens line 3: "), containsString(reason)));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "app read|found 2 fields",
            "app read HASH prefix=a extra|found 'extra'",
            "app read HASH prefix=a expires=2027-01-01T00:00:00Z extra|found 6 fields",
            "app read HASH prefix=a prefix=b|each at most once, found 'prefix=b'",
            "app read HASH expires=2027-01-01T00:00:00Z expires=2028-01-01T00:00:00Z|each at most once",
            "app read HASH expires=tomorrow|expires= must be an instant in UTC, e.g. expires=2027-03-01T00:00:00Z, found 'tomorrow'",
            "app read HASH expires=2027-01-01|expires= must be an instant in UTC",
            "app! read HASH|name 'app!' must be 1 to 64 letters",
            "app reed HASH|unknown scope 'reed'",
            "app read,read HASH|scope 'read' is listed twice",
            "app read, HASH|unknown scope ''",
            "app read rkv_abcdefghijklmnop|the third field must be sha256:HEX",
            "app read sha256:abcd|64 hex digits, found 4",
            "app read HASH tenant/|after the third field come prefix=KEY-PREFIX and expires=INSTANT",
            "app read HASH prefix=|the key prefix is empty",
            "app read HASH prefix=%zz|malformed percent-encoding",
            "app read,admin HASH prefix=a|both a key prefix and the admin scope"})
    void aBadLineIsRefusedWithItsNumber(String line, String reason) {
        TokenFileException e = assertThrows(TokenFileException.class,
                () -> TokenFile.parse("# tokens\nok read " + OTHER_HASH + "\n" + line.replace("HASH", HASH) + "\n", "auth.tokens"));
        assertThat(e.getMessage(), allOf(containsString("auth.tokens line 3: "), containsString(reason)));
    }

    @Test
    void aPastedTokenIsNotEchoedWhole() {
        TokenFileException e = assertThrows(TokenFileException.class,
                () -> TokenFile.parse("app read rkv_secretsecretsecret\n", "tokens"));
        assertThat(e.getMessage(), not(containsString("secretsecret")));
    }

    @Test
    void namesAndHashesAreUnique() {
        assertThat(assertThrows(TokenFileException.class, () -> TokenFile.parse(
                "app read " + HASH + "\napp write " + OTHER_HASH + "\n", "tokens")).getMessage(),
                containsString("line 2: the name 'app' is already used on line 1"));
        assertThat(assertThrows(TokenFileException.class, () -> TokenFile.parse(
                "app read " + HASH + "\nother write " + HASH + "\n", "tokens")).getMessage(),
                containsString("line 2: the same token hash is on line 1"));
    }

    @Test
    void aMissingFileIsNamedWithHowToMakeOne() {
        Path missing = dir.resolve("nope.tokens");
        assertThat(assertThrows(TokenFileException.class, () -> TokenFile.read(missing)).getMessage(),
                allOf(containsString(missing + ": no such file"), containsString("ringkv token")));
    }

    @Test
    void addCreatesAnOwnerOnlyFileWithTheHashOnly() throws Exception {
        Path file = dir.resolve("sub/auth.tokens");
        String token = BearerToken.generate();
        TokenFile.add(file, new Grant("app", EnumSet.of(AccessScope.READ), KeyPrefix.parse("a b")), BearerToken.sha256(token));

        String text = Files.readString(file);
        assertThat(text, allOf(containsString("# ringkv access tokens"), not(containsString(token)),
                containsString("app  read  sha256:" + HexFormat.of().formatHex(BearerToken.sha256(token)) + "  prefix=a%20b\n")));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)), is("rw-------"));
        assertThat(TokenFile.read(file).getFirst().grant().prefix(), is(KeyPrefix.parse("a b")));
    }

    @Test
    void addKeepsWhatTheFileHadAndRefusesATakenName() throws Exception {
        Path file = Files.writeString(dir.resolve("auth.tokens"), "# mine\nops admin " + HASH);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        TokenFile.add(file, new Grant("app", EnumSet.of(AccessScope.WRITE), null), BearerToken.sha256("t"));
        assertThat(Files.readString(file), allOf(containsString("# mine\nops admin " + HASH + "\napp  write  sha256:")));
        assertThat("permissions kept", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)), is("rw-r-----"));

        TokenFileException taken = assertThrows(TokenFileException.class,
                () -> TokenFile.add(file, new Grant("ops", EnumSet.of(AccessScope.READ), null), BearerToken.sha256("u")));
        assertThat(taken.getMessage(), containsString("line 2: a token named 'ops' is already there"));
    }

    @Test
    void addRefusesAFileThatDoesNotReadAndLeavesItAlone() throws Exception {
        Path file = Files.writeString(dir.resolve("auth.tokens"), "ops admin " + HASH + "\nbroken\n");
        TokenFileException e = assertThrows(TokenFileException.class,
                () -> TokenFile.add(file, new Grant("app", EnumSet.of(AccessScope.READ), null), BearerToken.sha256("t")));
        assertThat(e.getMessage(), containsString("line 2"));
        assertThat(Files.readString(file), is("ops admin " + HASH + "\nbroken\n"));
    }

    @Test
    void anExpiryIsReadInEitherOrderWithAPrefixAndWrittenBack() throws Exception {
        AccessEntries entries = TokenFile.parseEntries("a read " + HASH + " expires=2027-03-01T00:00:00Z prefix=t%2F\n"
                + "b read " + OTHER_HASH + " prefix=u expires=2027-03-01T12:30:00Z\n"
                + "c admin cert:ops.example.org expires=2020-01-01T00:00:00Z\n", "auth.tokens");
        assertThat(entries.tokens().get(0).grant().expiresAt(), is(Instant.parse("2027-03-01T00:00:00Z")));
        assertThat(entries.tokens().get(0).grant().prefix().encoded(), is("t/"));
        assertThat(entries.tokens().get(1).grant().expiresAt(), is(Instant.parse("2027-03-01T12:30:00Z")));
        assertThat(entries.certificates().getFirst().grant().expiresAt(), is(Instant.parse("2020-01-01T00:00:00Z")));

        Path file = dir.resolve("auth.tokens");
        Grant expiring = new Grant("app", EnumSet.of(AccessScope.READ), KeyPrefix.parse("t%2F"), Instant.parse("2027-03-01T00:00:00Z"));
        TokenFile.add(file, expiring, BearerToken.sha256("t"));
        assertThat(TokenFile.read(file).getFirst().grant(), is(expiring));
        assertThat(Files.readString(file), containsString("prefix=t/  expires=2027-03-01T00:00:00Z"));
    }

    @Test
    void aGrantExpiresAtItsInstant() {
        Grant grant = new Grant("app", EnumSet.of(AccessScope.READ), null, Instant.parse("2027-03-01T00:00:00Z"));
        assertThat(grant.expiredAt(Instant.parse("2027-02-28T23:59:59.999Z")), is(false));
        assertThat(grant.expiredAt(Instant.parse("2027-03-01T00:00:00Z")), is(true));
        assertThat(new Grant("app", EnumSet.of(AccessScope.READ), null).expiredAt(Instant.MAX), is(false));
    }

    @Test
    void replaceSwapsTheLineOfTheSameName() throws Exception {
        Path file = Files.writeString(dir.resolve("auth.tokens"), "up-admin admin " + HASH + "\napp read " + OTHER_HASH + "\n");
        TokenFile.replace(file, new Grant("up-admin", EnumSet.allOf(AccessScope.class), null), BearerToken.sha256("new"));
        List<StoredToken> tokens = TokenFile.read(file);
        assertThat(tokens, hasSize(2));
        assertThat(tokens.get(0).grant().name(), is("app"));
        assertThat(tokens.get(1).grant().name(), is("up-admin"));
        assertThat(Files.readString(file), not(containsString(HASH)));
    }
}

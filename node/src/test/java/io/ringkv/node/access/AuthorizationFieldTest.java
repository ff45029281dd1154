package io.ringkv.node.access;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.Headers;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** AuthorizationField: reading the Authorization field: Bearer, Basic with the token as password, and what is malformed. */
class AuthorizationFieldTest {

    private static Credentials of(String... fields) {
        Headers headers = new Headers();
        for (String field : fields) {
            headers.add("authorization", field);
        }
        return AuthorizationField.read(headers);
    }

    @Test
    void readsABearerTokenInAnyCaseOfTheScheme() {
        assertThat(of("Bearer rkv_abc-_.~+/=="), is(new Credentials.Token("rkv_abc-_.~+/==")));
        assertThat(of("bearer   rkv_abc"), is(new Credentials.Token("rkv_abc")));
        assertThat(AuthorizationField.read(new Headers()), instanceOf(Credentials.None.class));
    }

    @Test
    void readsTheTokenFromBasicsPassword() {
        String pair = Base64.getEncoder().encodeToString("anyone:rkv_abc".getBytes(StandardCharsets.UTF_8));
        assertThat(of("Basic " + pair), is(new Credentials.Token("rkv_abc")));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "Bearer|without a token",
            "Bearer a b|malformed",
            "Bearer =abc|malformed",
            "Digest x=y|scheme 'Digest' is not supported",
            "Basic %%%|not base64",
            "Basic bm9jb2xvbg==|not user:password"})
    void namesWhatIsMalformed(String field, String reason) {
        Credentials credentials = of(field);
        assertThat(field, credentials, instanceOf(Credentials.Malformed.class));
        assertThat(((Credentials.Malformed) credentials).reason(), containsString(reason));
    }

    @Test
    void aBareTokenIsNotEchoed() {
        String reason = ((Credentials.Malformed) of("rkv_abcdefghijklmnopqrstuvwxyz")).reason();
        assertThat(reason.contains("rkv_"), is(false));
    }

    @Test
    void twoFieldsAreMalformed() {
        assertThat(((Credentials.Malformed) of("Bearer a", "Bearer b")).reason(), containsString("2 Authorization fields"));
    }

    @Test
    void aTokenNeverShowsInItsDescription() {
        assertThat(of("Bearer rkv_secret").toString().contains("secret"), is(false));
    }
}

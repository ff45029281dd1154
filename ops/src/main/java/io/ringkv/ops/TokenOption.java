package io.ringkv.ops;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The {@code --token TOKEN} option of the commands that read a node's admin pages
 * ({@code status}), for nodes started with {@code --auth-file}; {@code $RINGKV_TOKEN} is its
 * default, which keeps the token out of the process list and the shell history. Stateless.
 */
public final class TokenOption {
    public static final String ENVIRONMENT_VARIABLE = "RINGKV_TOKEN";
    static final String DESCRIPTION = "For nodes started with --auth-file: a token with the admin scope, sent as "
            + "'Authorization: Bearer TOKEN'. Default: $" + ENVIRONMENT_VARIABLE + " (better than this option, which "
            + "other users of the machine can see in the process list).";

    private TokenOption() {
    }

    /** The Authorization field for {@code token}, null without one; a token that cannot be sent is a usage error. */
    static String authorization(String token, CommandLine commandLine) {
        if (token == null || token.isEmpty()) {
            return null;
        }
        if (!BearerToken.wellFormed(token)) {
            throw new ParameterException(commandLine, "--token (or $" + ENVIRONMENT_VARIABLE + ") is not a token: a token is "
                    + "one word of letters, digits and -._~+/, as 'ringkv token' prints it");
        }
        return "Bearer " + token;
    }
}

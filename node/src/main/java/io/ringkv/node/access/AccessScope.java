package io.ringkv.node.access;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a token may do. The scopes are independent of each other: {@code admin} does not include
 * {@code read} or {@code write} (an operator's token that reads data too lists all three), so a
 * monitoring token can read {@code /metrics} without reading a single value.
 */
public enum AccessScope {
    /** {@code GET} and {@code HEAD} of {@code /v0/entity}, and ranges ({@code /v0/entities}). */
    READ,
    /** {@code PUT} and {@code DELETE} of {@code /v0/entity}. */
    WRITE,
    /** {@code /metrics} and the dashboard ({@code /ui/}, with its JSON under {@code /ui/api/}). */
    ADMIN;

    /** The name in token files, on the command line and in answers: {@code read}, {@code write}, {@code admin}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * A comma-separated list such as {@code read,write}: at least one scope, each at most once.
     *
     * @throws IllegalArgumentException naming what is wrong and the scopes there are
     */
    public static Set<AccessScope> parseList(String text) {
        Set<AccessScope> scopes = EnumSet.noneOf(AccessScope.class);
        if (text.isEmpty()) {
            throw new IllegalArgumentException("no scopes: give one or more of read, write, admin, comma-separated");
        }
        for (String label : text.split(",", -1)) {
            AccessScope scope = parse(label);
            if (!scopes.add(scope)) {
                throw new IllegalArgumentException("scope '" + label + "' is listed twice in '" + text + "'");
            }
        }
        return scopes;
    }

    private static AccessScope parse(String label) {
        for (AccessScope scope : values()) {
            if (scope.label().equals(label)) {
                return scope;
            }
        }
        throw new IllegalArgumentException("unknown scope '" + label + "': the scopes are read, write and admin");
    }

    /** The scopes as {@link #parseList} reads them, in the order read, write, admin. */
    public static String format(Set<AccessScope> scopes) {
        return EnumSet.copyOf(scopes).stream().map(AccessScope::label).collect(Collectors.joining(","));
    }
}

package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IfNoneMatchTest {

    @Test
    void noFieldIsNoCondition() {
        assertThat(IfNoneMatch.parse(List.of()).matches("\"1\""), is(false));
    }

    @Test
    void starMatchesAnyVersion() {
        assertThat(IfNoneMatch.parse(List.of(" * ")).matches("\"1\""), is(true));
    }

    @Test
    void tagsCompareWeaklyAcrossEveryFieldOfTheRequest() {
        IfNoneMatch condition = IfNoneMatch.parse(List.of("\"a\", W/\"b\"", ",\t\"c\" ,,"));
        assertThat(condition.tags(), is(List.of("\"a\"", "\"b\"", "\"c\"")));
        assertThat(condition.matches("\"b\""), is(true));
        assertThat(condition.matches("\"d\""), is(false));
        assertThat("the quotes are part of the tag", condition.matches("a"), is(false));
    }

    @Test
    void anEmptyFieldIsAnEmptyListThatMatchesNothing() {
        assertThat(IfNoneMatch.parse(List.of("")).matches("\"1\""), is(false));
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "W/abc", "w/\"a\"", "\"a", "\"a\" \"b\"", "\"a\"b", "*, \"a\"", "\"a\", *", "\"a b\"", "W/ \"a\""})
    void anythingElseIsMalformed(String field) {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> IfNoneMatch.parse(List.of(field)));
        assertThat(error.getMessage(), containsString("If-None-Match"));
    }

    @Test
    void starInOneFieldAndTagsInAnotherIsMalformed() {
        assertThrows(IllegalArgumentException.class, () -> IfNoneMatch.parse(List.of("*", "\"a\"")));
    }
}

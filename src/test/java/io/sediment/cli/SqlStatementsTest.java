package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Statements cut at the {@code ;} tokens of Flink SQL's lexer. */
class SqlStatementsTest {

  @Test
  void semicolonsInsideLiteralsNamesCommentsAndHintsDoNotSplit() {
    SqlStatements s =
        SqlStatements.split(
            "SELECT 'a;b', `c;d` FROM t; -- it's a comment; still\n"
                + "SELECT * FROM t /*+ OPTIONS('k' = ';') */ /* it's; */ WHERE v = 'it''s';");
    assertThat(s.statements())
        .containsExactly(
            "SELECT 'a;b', `c;d` FROM t",
            "-- it's a comment; still\n"
                + "SELECT * FROM t /*+ OPTIONS('k' = ';') */ /* it's; */ WHERE v = 'it''s'");
    assertThat(s.complete()).isTrue();
  }

  @Test
  void tabsAndLineEndsKeepTheCutsInPlace() {
    assertThat(SqlStatements.split("SELECT\t1;\r\nSELECT\t'x;y';\rSELECT 3;").statements())
        .containsExactly("SELECT\t1", "SELECT\t'x;y'", "SELECT 3");
  }

  @Test
  void whatFollowsTheLastSemicolonIsIncompleteUnlessOnlyComments() {
    assertThat(SqlStatements.split("SELECT 1; -- done: it's over\n").complete()).isTrue();
    assertThat(SqlStatements.split("-- nothing; here\n  /* at all; */").statements()).isEmpty();

    SqlStatements typing = SqlStatements.split("SELECT 1; SELECT 2");
    assertThat(typing.complete()).isFalse();
    assertThat(typing.all()).containsExactly("SELECT 1", "SELECT 2");

    // unterminated string, back-quoted name and comment: the ';' inside is not an end
    assertThat(SqlStatements.split("SELECT 'abc;").rest()).isEqualTo("SELECT 'abc;");
    assertThat(SqlStatements.split("SELECT `a;").complete()).isFalse();
    assertThat(SqlStatements.split("SELECT 1 /* a;").complete()).isFalse();
  }
}

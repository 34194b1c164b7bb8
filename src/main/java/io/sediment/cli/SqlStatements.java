package io.sediment.cli;

import static org.apache.flink.sql.parser.impl.FlinkSqlParserImplConstants.EOF;
import static org.apache.flink.sql.parser.impl.FlinkSqlParserImplConstants.QUOTE;
import static org.apache.flink.sql.parser.impl.FlinkSqlParserImplConstants.SEMICOLON;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.flink.sql.parser.impl.FlinkSqlParserImplTokenManager;
import org.apache.flink.sql.parser.impl.SimpleCharStream;
import org.apache.flink.sql.parser.impl.Token;
import org.apache.flink.sql.parser.impl.TokenMgrError;

/**
 * A SQL script cut into statements at the {@code ;} tokens of Flink SQL's own lexer (the generated
 * {@code FlinkSqlParserImplTokenManager}, as Flink's SQL client uses it): a {@code ;} inside a
 * string literal, a back-quoted name, a {@code --} or {@code /* *}{@code /} comment or a hint does
 * not end a statement, and an apostrophe in a comment opens no string.
 *
 * @param statements the statements that ended with {@code ;}, without it, stripped
 * @param rest what follows the last {@code ;} when it is more than white space and comments (a
 *     statement still being typed, or an unterminated string, name or comment); else empty
 */
record SqlStatements(List<String> statements, String rest) {

  /** The lexical state of Flink SQL: back-quoted identifiers, as {@code CalciteParser} sets it. */
  private static final int BACK_QUOTED_IDENTIFIERS =
      Arrays.asList(FlinkSqlParserImplTokenManager.lexStateNames).indexOf("BTID");

  /** Whether the text ends with a complete statement (nothing follows its {@code ;}). */
  boolean complete() {
    return rest.isEmpty();
  }

  /** The statements of a whole script: the last one may omit its {@code ;}. */
  List<String> all() {
    if (rest.isEmpty()) {
      return statements;
    }
    List<String> all = new ArrayList<>(statements);
    all.add(rest);
    return all;
  }

  static SqlStatements split(String script) {
    // Tabs count as several columns in the lexer's positions; as a space they count as one and
    // separate tokens the same way. Offsets below are computed on the original text.
    String text = script.replace('\t', ' ');
    int[] lineStarts = lineStarts(text);
    FlinkSqlParserImplTokenManager lexer = lexer(text);
    List<String> statements = new ArrayList<>();
    int start = 0;
    boolean tokensSinceStart = false;
    while (true) {
      Token token;
      try {
        token = lexer.getNextToken();
      } catch (TokenMgrError unterminated) {
        // A back-quoted name or /* comment that the text does not close: the rest is incomplete.
        return new SqlStatements(statements, script.substring(start).strip());
      }
      if (token.kind == EOF) {
        String rest = tokensSinceStart ? script.substring(start).strip() : "";
        return new SqlStatements(statements, rest);
      }
      if (token.kind == QUOTE) {
        // A lone quote is a string literal that the text does not close.
        return new SqlStatements(statements, script.substring(start).strip());
      }
      if (token.kind == SEMICOLON) {
        int end = lineStarts[token.beginLine - 1] + token.beginColumn - 1;
        if (tokensSinceStart) {
          statements.add(script.substring(start, end).strip());
        }
        start = end + 1;
        tokensSinceStart = false;
      } else {
        tokensSinceStart = true;
      }
    }
  }

  /** A {@code CALL} statement's procedure name (without database) and its named arguments. */
  record Call(String procedure, List<String> namedArguments) {}

  /**
   * The procedure and the names given before {@code =>} of a {@code CALL} statement, read with
   * Flink SQL's lexer (a {@code =>} inside a string literal is no argument); empty for any other
   * statement or one the lexer cannot read.
   */
  static Optional<Call> call(String statement) {
    FlinkSqlParserImplTokenManager lexer = lexer(statement.replace('\t', ' '));
    List<String> tokens = new ArrayList<>();
    try {
      for (Token t = lexer.getNextToken(); t.kind != EOF; t = lexer.getNextToken()) {
        tokens.add(t.image);
      }
    } catch (TokenMgrError unreadable) {
      return Optional.empty();
    }
    if (tokens.isEmpty() || !tokens.get(0).equalsIgnoreCase("CALL")) {
      return Optional.empty();
    }
    int open = tokens.indexOf("(");
    if (open < 2) {
      return Optional.empty();
    }
    String procedure = unquote(tokens.get(open - 1));
    List<String> names = new ArrayList<>();
    for (int i = open + 1; i < tokens.size(); i++) {
      if (tokens.get(i).equals("=>")) {
        names.add(unquote(tokens.get(i - 1)));
      }
    }
    return Optional.of(new Call(procedure, names));
  }

  /** Flink SQL's lexer over {@code text}, with back-quoted identifiers as its parser sets them. */
  private static FlinkSqlParserImplTokenManager lexer(String text) {
    FlinkSqlParserImplTokenManager lexer =
        new FlinkSqlParserImplTokenManager(new SimpleCharStream(new StringReader(text)));
    lexer.SwitchTo(BACK_QUOTED_IDENTIFIERS);
    return lexer;
  }

  private static String unquote(String name) {
    return name.length() >= 2 && (name.startsWith("`") || name.startsWith("\""))
        ? name.substring(1, name.length() - 1)
        : name;
  }

  /** Offsets of the lines as the lexer counts them (after \n, \r\n or a lone \r). */
  private static int[] lineStarts(String text) {
    List<Integer> starts = new ArrayList<>();
    starts.add(0);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n' || (c == '\r' && (i + 1 == text.length() || text.charAt(i + 1) != '\n'))) {
        starts.add(i + 1);
      }
    }
    return starts.stream().mapToInt(Integer::intValue).toArray();
  }
}

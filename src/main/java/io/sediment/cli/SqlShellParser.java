package io.sediment.cli;

import org.jline.reader.EOFError;
import org.jline.reader.ParsedLine;
import org.jline.reader.impl.DefaultParser;

/**
 * Line parsing of the SQL shell: Enter accepts the input only when it ends with a complete
 * statement (its {@code ;} outside strings, names and comments, by {@link SqlStatements});
 * otherwise the line continues on the next one, as in Flink's SQL client.
 */
final class SqlShellParser extends DefaultParser {

  SqlShellParser() {
    // Quotes belong to SQL's lexer, not to JLine's word splitting.
    setEscapeChars(null);
    setQuoteChars(null);
  }

  @Override
  public ParsedLine parse(String line, int cursor, ParseContext context) {
    if (context == ParseContext.ACCEPT_LINE && !SqlStatements.split(line).complete()) {
      throw new EOFError(-1, -1, "The statement does not end with ';' yet", "");
    }
    return super.parse(line, cursor, context);
  }
}

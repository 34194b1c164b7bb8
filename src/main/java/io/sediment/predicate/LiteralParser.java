package io.sediment.predicate;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.regex.Pattern;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * Parsing of literal text (a JSON string or number, a string from SQL or the command line) to the
 * internal value of a column type (package-private). Separate from {@link Literals}, which converts
 * Java values, compares and formats: this class owns the text syntax (ISO dates and times, a space
 * for the {@code T} of timestamps, base64 binaries, floating-point spellings) and reports
 * mismatches through {@link Literals#mismatch}.
 */
final class LiteralParser {

  private static final Pattern FLOATING =
      Pattern.compile("[+-]?(NaN|Infinity|(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?)");

  private LiteralParser() {}

  /** Parses the text of a JSON string literal to the column type. */
  static Object parseText(String text, LogicalType type, String field) {
    String kind = "String";
    try {
      switch (type.getTypeRoot()) {
        case CHAR:
        case VARCHAR:
          return BinaryStringData.fromString(text);
        case BOOLEAN:
          if (text.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
          }
          if (text.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
          }
          throw Literals.mismatch(text, kind, field, type, null);
        case BINARY:
        case VARBINARY:
          try {
            return Base64.getDecoder().decode(text);
          } catch (IllegalArgumentException e) {
            throw Literals.mismatch(text, kind, field, type, "not valid base64");
          }
        case TINYINT:
        case SMALLINT:
        case INTEGER:
        case BIGINT:
        case DECIMAL:
        case FLOAT:
        case DOUBLE:
          return parseNumber(text, kind, type, field);
        case DATE:
          return Math.toIntExact(LocalDate.parse(text).toEpochDay());
        case TIME_WITHOUT_TIME_ZONE:
          return Literals.timeMillis(LocalTime.parse(text), text, kind, field, type);
        case TIMESTAMP_WITHOUT_TIME_ZONE:
          return TimestampData.fromLocalDateTime(LocalDateTime.parse(spaceToT(text)));
        case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
          {
            String t = spaceToT(text);
            try {
              return TimestampData.fromInstant(OffsetDateTime.parse(t).toInstant());
            } catch (DateTimeParseException e) {
              try {
                LocalDateTime.parse(t);
              } catch (DateTimeParseException e2) {
                throw e;
              }
              throw Literals.mismatch(
                  text, kind, field, type, "ambiguous without a time zone offset");
            }
          }
        default:
          throw Literals.mismatch(text, kind, field, type, null);
      }
    } catch (DateTimeParseException | ArithmeticException e) {
      throw Literals.mismatch(text, kind, field, type, "unparsable");
    }
  }

  private static String spaceToT(String text) {
    if (text.length() > 10 && text.charAt(10) == ' ') {
      return text.substring(0, 10) + 'T' + text.substring(11);
    }
    return text;
  }

  /** Converts the text of a number (a JSON number or a numeric string) to a numeric column. */
  static Object parseNumber(String text, String kind, LogicalType type, String field) {
    switch (type.getTypeRoot()) {
      case FLOAT:
        if (!FLOATING.matcher(text).matches()) {
          throw Literals.mismatch(text, kind, field, type, "unparsable");
        }
        return Float.parseFloat(text);
      case DOUBLE:
        if (!FLOATING.matcher(text).matches()) {
          throw Literals.mismatch(text, kind, field, type, "unparsable");
        }
        return Double.parseDouble(text);
      case DECIMAL:
        try {
          return Literals.decimal(new BigDecimal(text), text, kind, field, (DecimalType) type);
        } catch (NumberFormatException e) {
          throw Literals.mismatch(text, kind, field, type, "unparsable");
        }
      case TINYINT:
      case SMALLINT:
      case INTEGER:
      case BIGINT:
        {
          BigDecimal bd;
          try {
            bd = new BigDecimal(text);
          } catch (NumberFormatException e) {
            throw Literals.mismatch(text, kind, field, type, "unparsable");
          }
          BigInteger bi;
          try {
            bi = bd.toBigIntegerExact();
          } catch (ArithmeticException e) {
            throw Literals.mismatch(text, kind, field, type, "not an integer");
          }
          try {
            return Literals.toInternal(bi, type, field);
          } catch (IllegalArgumentException e) {
            throw Literals.mismatch(text, kind, field, type, "out of range");
          }
        }
      default:
        throw Literals.mismatch(text, kind, field, type, null);
    }
  }
}

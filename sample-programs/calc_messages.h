/* calc_messages.h -- the messages of the calc sample (the RADAR report's Appendix J).
 *
 *              TokenClasses            Syntax
 *     scanner --------------> parser ---------> interpreter
 *        |                                          ^
 *        +------------------------------------------+
 *                        TokenValues
 *
 * For each expression (one input line) the scanner sends TokenClasses to the
 * parser and TokenValues to the interpreter; the parser sends Syntax to the
 * interpreter, which prints "= <result>". Every message is one of the
 * fixed-size structs below, sent whole as raw bytes in the host's byte order:
 * no pointers, no padding (the sizes are checked below), so a decoder that
 * knows this layout can show every field.
 *
 * PLANTED BUG (for docs/tutorial.md)
 * ----------------------------------
 * The interpreter is a small stack machine. For a binary operator it
 * evaluates the operand with more nodes first (Sethi-Ullman order, to keep
 * its stack shallow), so when the right operand is the bigger one the left
 * operand's value ends up on top of the stack. Addition, multiplication and
 * division take that into account; subtraction does not, and computes
 * (right - left) whenever the right operand has more syntax nodes than the
 * left one:
 *
 *     10 - (2 + 3)           prints = -5   (should be 5)
 *     10 - 2 * 3             prints = -4   (should be 4)
 *     (2 + 3) * x - 4 / 2    prints = 33   (right)
 *     x - y                  prints = 4    (right)
 *
 * The scanner's and the parser's messages are correct in every case: the
 * replay shows a right Syntax tree going into the interpreter and a wrong
 * result coming out. With CALC_FIXED=1 in its environment the interpreter
 * computes correctly (tests use it to check that this is the only
 * difference).
 */
#ifndef RADAR_SAMPLES_CALC_MESSAGES_H
#define RADAR_SAMPLES_CALC_MESSAGES_H

#include <stdint.h>

#define CALC_MAX_TOKENS 64 /* tokens per expression, and nodes per tree */
#define CALC_NAME_SIZE 8   /* identifiers have at most 7 characters */

/* Token classes (TokenClasses.kind). */
enum calc_token_kind {
  TOK_NUMBER = 1, /* 42, 3.5 */
  TOK_NAME = 2,   /* x, rate */
  TOK_PLUS = 3,   /* + */
  TOK_MINUS = 4,  /* - */
  TOK_STAR = 5,   /* * */
  TOK_SLASH = 6,  /* / */
  TOK_LPAREN = 7, /* ( */
  TOK_RPAREN = 8, /* ) */
  TOK_ERROR = 9   /* a character that starts no token, an identifier too long,
                     or one token too many; the parser reports it */
};

/* scanner -> parser: what kind each token is. */
struct TokenClasses {
  uint32_t line;                 /* the expression's number, from 1 */
  uint32_t count;                /* tokens in kind[] */
  uint8_t kind[CALC_MAX_TOKENS]; /* enum calc_token_kind */
};

/* One token's value. */
struct TokenValue {
  double number;             /* TOK_NUMBER: its value; 0 otherwise */
  char name[CALC_NAME_SIZE]; /* TOK_NAME: the identifier; otherwise the
                                token's text ("+", "3.5" cut to 7
                                characters); NUL-terminated */
};

/* scanner -> interpreter: the value of each token, same indices as TokenClasses. */
struct TokenValues {
  uint32_t line; /* same as TokenClasses.line */
  uint32_t count;
  struct TokenValue value[CALC_MAX_TOKENS];
};

/* Syntax tree node operations (SyntaxNode.op). */
enum calc_op {
  OP_NUMBER = 1, /* leaf: TokenValues.value[token].number */
  OP_NAME = 2,   /* leaf: the variable TokenValues.value[token].name */
  OP_ADD = 3,    /* left + right */
  OP_SUB = 4,    /* left - right */
  OP_MUL = 5,    /* left * right */
  OP_DIV = 6,    /* left / right */
  OP_NEG = 7,    /* -left (unary minus) */
  OP_GROUP = 8   /* (left): a parenthesized sub-expression */
};

/* One node of the syntax tree. */
struct SyntaxNode {
  uint8_t op;    /* enum calc_op */
  uint8_t token; /* the token it comes from: the number, the name, the
                    operator, or the "(" of a group */
  int16_t left;  /* index of the left (or only) child in Syntax.node, or -1 */
  int16_t right; /* index of the right child, or -1 */
};

/* parser -> interpreter: the expression's tree. Children always come before
   their parent in node[] (postfix order). */
struct Syntax {
  uint32_t line;       /* same as TokenClasses.line */
  uint32_t count;      /* nodes in node[] */
  int16_t root;        /* index of the root node; -1 when there is an error */
  int16_t error_token; /* index of the token where a syntax error was found
                          (== token count: unexpected end); -1 if none */
  struct SyntaxNode node[CALC_MAX_TOKENS];
};

/* The layouts are fixed: no padding anywhere. */
_Static_assert(sizeof(struct TokenClasses) == 8 + CALC_MAX_TOKENS, "TokenClasses layout");
_Static_assert(sizeof(struct TokenValue) == 16, "TokenValue layout");
_Static_assert(sizeof(struct TokenValues) == 8 + 16 * CALC_MAX_TOKENS, "TokenValues layout");
_Static_assert(sizeof(struct SyntaxNode) == 6, "SyntaxNode layout");
_Static_assert(sizeof(struct Syntax) == 12 + 6 * CALC_MAX_TOKENS, "Syntax layout");

#endif /* RADAR_SAMPLES_CALC_MESSAGES_H */

/* calc_proc -- the three processes of calc (see calc.c and calc_messages.h).
 * argv[0] chooses the role:
 *   scanner      stdin -> CLASSES (struct TokenClasses), VALUES (struct TokenValues)
 *   parser       CLASSES -> SYNTAX (struct Syntax), by recursive descent:
 *                    expr    := term { ("+" | "-") term }
 *                    term    := unary { ("*" | "/") unary }
 *                    unary   := "-" unary | primary
 *                    primary := NUMBER | NAME | "(" expr ")"
 *   interpreter  VALUES + SYNTAX -> "= <result>" on stdout, evaluated by a
 *                small stack machine; variables x = 7, y = 3, z = 10.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc_messages.h"
#include "radar_ports.h"

static void die(const char* who, const char* what) {
  fprintf(stderr, "%s: %s: %s\n", who, what, errno != 0 ? strerror(errno) : "protocol error");
  exit(1);
}

/* ---- scanner ---------------------------------------------------------- */

static void add_token(struct TokenClasses* classes, struct TokenValues* values, int kind, double number,
                      const char* text, size_t length) {
  uint32_t i = classes->count;
  if (i == CALC_MAX_TOKENS) return;
  if (i == CALC_MAX_TOKENS - 1) { /* no room for more: the last one says so */
    kind = TOK_ERROR;
    text = "...";
    length = 3;
  }
  classes->kind[i] = (uint8_t)kind;
  values->value[i].number = number;
  if (length > CALC_NAME_SIZE - 1) length = CALC_NAME_SIZE - 1;
  memcpy(values->value[i].name, text, length);
  classes->count = values->count = i + 1;
}

static void scan(const char* s, struct TokenClasses* classes, struct TokenValues* values) {
  while (*s != '\0') {
    const char* start = s;
    if (isspace((unsigned char)*s)) {
      s++;
    } else if (isdigit((unsigned char)*s) || *s == '.') {
      char* end;
      double number = strtod(s, &end);
      if (end == s) end++; /* a lone "." */
      s = end;
      add_token(classes, values, end == start + 1 && *start == '.' ? TOK_ERROR : TOK_NUMBER, number, start,
                (size_t)(s - start));
    } else if (isalpha((unsigned char)*s) || *s == '_') {
      while (isalnum((unsigned char)*s) || *s == '_') s++;
      size_t length = (size_t)(s - start);
      add_token(classes, values, length < CALC_NAME_SIZE ? TOK_NAME : TOK_ERROR, 0, start, length);
    } else {
      const char* operators = "+-*/()";
      const char* op = strchr(operators, *s);
      int kind = op != NULL ? TOK_PLUS + (int)(op - operators) : TOK_ERROR;
      s++;
      add_token(classes, values, kind, 0, start, 1);
    }
  }
}

static int scanner(void) {
  char line[4096];
  uint32_t number = 0;
  while (fgets(line, sizeof line, stdin) != NULL) {
    if (strspn(line, " \t\r\n") == strlen(line)) continue; /* blank line */
    struct TokenClasses classes;
    struct TokenValues values;
    memset(&classes, 0, sizeof classes);
    memset(&values, 0, sizeof values);
    classes.line = values.line = ++number;
    scan(line, &classes, &values);
    if (radar_port_send("CLASSES", &classes, sizeof classes) < 0) die("scanner", "CLASSES");
    if (radar_port_send("VALUES", &values, sizeof values) < 0) die("scanner", "VALUES");
  }
  return 0;
}

/* ---- parser ----------------------------------------------------------- */

struct parser {
  const struct TokenClasses* in;
  struct Syntax* out;
  uint32_t next; /* the next token */
};

static int peek(const struct parser* p) { return p->next < p->in->count ? p->in->kind[p->next] : 0; }

/* Appends a node; returns its index, or -1 after recording an error. */
static int node(struct parser* p, int op, uint32_t token, int left, int right) {
  if (left == -2 || right == -2) return -2; /* an error below */
  struct SyntaxNode* n = &p->out->node[p->out->count];
  n->op = (uint8_t)op;
  n->token = (uint8_t)token;
  n->left = (int16_t)left;
  n->right = (int16_t)right;
  return (int)p->out->count++;
}

/* Every parse function returns a node index, or -2 on a syntax error, with
   the offending token in out->error_token. */
static int error(struct parser* p) {
  p->out->error_token = (int16_t)p->next;
  return -2;
}

static int expr(struct parser* p);

static int primary(struct parser* p) {
  uint32_t token = p->next;
  switch (peek(p)) {
    case TOK_NUMBER:
      p->next++;
      return node(p, OP_NUMBER, token, -1, -1);
    case TOK_NAME:
      p->next++;
      return node(p, OP_NAME, token, -1, -1);
    case TOK_LPAREN: {
      p->next++;
      int inside = expr(p);
      if (inside == -2) return -2;
      if (peek(p) != TOK_RPAREN) return error(p);
      p->next++;
      return node(p, OP_GROUP, token, inside, -1);
    }
    default:
      return error(p);
  }
}

static int unary(struct parser* p) {
  if (peek(p) != TOK_MINUS) return primary(p);
  uint32_t token = p->next++;
  return node(p, OP_NEG, token, unary(p), -1);
}

static int term(struct parser* p) {
  int left = unary(p);
  while (left != -2 && (peek(p) == TOK_STAR || peek(p) == TOK_SLASH)) {
    uint32_t token = p->next++;
    int op = p->in->kind[token] == TOK_STAR ? OP_MUL : OP_DIV;
    int right = unary(p);
    left = node(p, op, token, left, right);
  }
  return left;
}

static int expr(struct parser* p) {
  int left = term(p);
  while (left != -2 && (peek(p) == TOK_PLUS || peek(p) == TOK_MINUS)) {
    uint32_t token = p->next++;
    int op = p->in->kind[token] == TOK_PLUS ? OP_ADD : OP_SUB;
    int right = term(p);
    left = node(p, op, token, left, right);
  }
  return left;
}

static int parser(void) {
  struct TokenClasses classes;
  int r;
  while ((r = radar_port_receive("CLASSES", &classes, sizeof classes)) == 1) {
    if (classes.count > CALC_MAX_TOKENS) {
      errno = 0;
      die("parser", "bad TokenClasses");
    }
    struct Syntax syntax;
    memset(&syntax, 0, sizeof syntax);
    syntax.line = classes.line;
    syntax.error_token = -1;
    struct parser p = {&classes, &syntax, 0};
    int root = expr(&p);
    if (root != -2 && p.next != classes.count) root = error(&p); /* tokens left over */
    syntax.root = (int16_t)(root == -2 ? -1 : root);
    if (root == -2) syntax.count = 0;
    if (radar_port_send("SYNTAX", &syntax, sizeof syntax) < 0) die("parser", "SYNTAX");
  }
  if (r < 0) die("parser", "CLASSES");
  return 0;
}

/* ---- interpreter ------------------------------------------------------ */

static const struct {
  const char* name;
  double value;
} variables[] = {{"x", 7}, {"y", 3}, {"z", 10}};

/* CALC_FIXED=1: see the note at the top of calc_messages.h. */
static int calc_fixed;

struct machine {
  const struct Syntax* syntax;
  const struct TokenValues* values;
  double stack[CALC_MAX_TOKENS];
  int top;
  char error[64]; /* set on the first error */
};

static void push(struct machine* m, double value) { m->stack[m->top++] = value; }
static double pop(struct machine* m) { return m->stack[--m->top]; }

/* The subtraction as the stack holds it: the value below minus the one on
   top. A function of its own, so that a debugger stops on it by name
   (`break subtract`, docs/tutorial.md). */
static __attribute__((noinline)) double subtract(double below, double top) { return below - top; }

static int size(const struct Syntax* syntax, int n) {
  if (n < 0) return 0;
  return 1 + size(syntax, syntax->node[n].left) + size(syntax, syntax->node[n].right);
}

/* Evaluates node n and pushes its value. */
static void eval(struct machine* m, int n) {
  const struct SyntaxNode* node = &m->syntax->node[n];
  const struct TokenValue* token = &m->values->value[node->token];
  switch (node->op) {
    case OP_NUMBER:
      push(m, token->number);
      return;
    case OP_NAME:
      for (size_t i = 0; i < sizeof variables / sizeof variables[0]; i++) {
        if (strncmp(token->name, variables[i].name, CALC_NAME_SIZE) == 0) {
          push(m, variables[i].value);
          return;
        }
      }
      if (m->error[0] == '\0') snprintf(m->error, sizeof m->error, "unknown variable %.7s", token->name);
      push(m, 0);
      return;
    case OP_GROUP:
      eval(m, node->left);
      return;
    case OP_NEG:
      eval(m, node->left);
      push(m, -pop(m));
      return;
  }

  /* A binary operator. Evaluate the bigger operand first: the stack then
     never holds more than one value per level of the tree (Sethi-Ullman). */
  int right_first = size(m->syntax, node->right) > size(m->syntax, node->left);
  if (right_first) {
    eval(m, node->right);
    eval(m, node->left);
  } else {
    eval(m, node->left);
    eval(m, node->right);
  }
  double top = pop(m), below = pop(m);
  double left = right_first ? top : below, right = right_first ? below : top;
  switch (node->op) {
    case OP_ADD:
      push(m, left + right);
      break;
    case OP_SUB:
      push(m, calc_fixed ? left - right : subtract(below, top));
      break;
    case OP_MUL:
      push(m, left * right);
      break;
    case OP_DIV:
      if (right == 0 && m->error[0] == '\0') snprintf(m->error, sizeof m->error, "division by zero");
      push(m, right != 0 ? left / right : 0);
      break;
  }
}

/* Checks what the interpreter relies on: indices in range, children first. */
static int well_formed(const struct Syntax* syntax, const struct TokenValues* values) {
  if (syntax->count > CALC_MAX_TOKENS || values->count > CALC_MAX_TOKENS) return 0;
  if (syntax->root < 0) return 1;
  if ((uint32_t)syntax->root >= syntax->count) return 0;
  for (uint32_t i = 0; i < syntax->count; i++) {
    const struct SyntaxNode* n = &syntax->node[i];
    if (n->op < OP_NUMBER || n->op > OP_GROUP || n->token >= values->count) return 0;
    if (n->left >= (int)i || n->right >= (int)i) return 0;
  }
  return 1;
}

static int interpreter(void) {
  const char* fixed = getenv("CALC_FIXED");
  calc_fixed = fixed != NULL && strcmp(fixed, "1") == 0;
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (;;) {
    struct TokenValues values;
    struct Syntax syntax;
    int r = radar_port_receive("VALUES", &values, sizeof values);
    if (r < 0) die("interpreter", "VALUES");
    int s = radar_port_receive("SYNTAX", &syntax, sizeof syntax);
    if (s < 0) die("interpreter", "SYNTAX");
    if (r == 0 && s == 0) return 0;
    errno = 0;
    if (r != s || values.line != syntax.line) die("interpreter", "VALUES and SYNTAX out of step");
    if (!well_formed(&syntax, &values)) die("interpreter", "malformed Syntax");

    if (syntax.root < 0) {
      int at = syntax.error_token;
      if (at >= 0 && (uint32_t)at < values.count)
        printf("error: syntax error at '%s'\n", values.value[at].name);
      else
        printf("error: syntax error at end of expression\n");
      continue;
    }
    struct machine m;
    memset(&m, 0, sizeof m);
    m.syntax = &syntax;
    m.values = &values;
    eval(&m, syntax.root);
    if (m.error[0] != '\0')
      printf("error: %s\n", m.error);
    else
      printf("= %.10g\n", pop(&m) + 0.0); /* + 0.0 turns -0 into 0 */
  }
}

int main(int argc, char** argv) {
  (void)argc;
  const char* name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  if (strcmp(name, "scanner") == 0) return scanner();
  if (strcmp(name, "parser") == 0) return parser();
  if (strcmp(name, "interpreter") == 0) return interpreter();
  fprintf(stderr, "calc_proc: run me as scanner, parser or interpreter (argv[0]), from calc\n");
  return 2;
}

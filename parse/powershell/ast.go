package powershell

// The syntax tree. Nodes hold byte offsets into their file; a script
// block remembers its file, so that commands found in code decoded at run
// time (Invoke-Expression of a known string) get positions in that code.

// A stmt is a statement node.
type stmt interface{ stmtNode() }

// An expr is an expression node.
type expr interface{ exprNode() }

// An elem is one element of a pipeline: a command, or an expression
// (only first).
type elem interface{ elemNode() }

// chainStmt is pipelines joined by && and || (PowerShell 7).
type chainStmt struct {
	pipes []*pipeline
}

// pipeline is elements joined by |.
type pipeline struct {
	pos   int
	elems []elem
}

// assignStmt is target op value, op one of = += -= *= /= %= ??=.
type assignStmt struct {
	pos    int
	target expr
	op     string
	value  stmt
}

type ifStmt struct {
	conds  []stmt
	bodies [][]stmt
	els    []stmt
}

// loopStmt is foreach, for, while, do-while and do-until. assigned
// lists the variables (lower case) that the loop assigns.
type loopStmt struct {
	kind     string
	varX     expr
	init     stmt
	cond     stmt
	iter     stmt
	body     []stmt
	assigned []string
}

type switchStmt struct {
	subject  stmt
	file     expr
	conds    []expr // nil for default
	bodies   [][]stmt
	assigned []string
}

type tryStmt struct {
	body    []stmt
	catches [][]stmt
	finally []stmt
}

// blockStmt is a statement block walked as it is: trap, begin, process,
// end, data.
type blockStmt struct {
	body []stmt
}

type funcDef struct {
	pos  int
	name string
	body *scriptBlock
}

// flowStmt is return, throw, exit, break and continue.
type flowStmt struct {
	kind  string
	value stmt
}

// paramStmt is a param( ) block: the parameters (lower case keys) and
// their default values.
type paramStmt struct {
	names    []string
	defaults []expr
}

// skipStmt is a statement with nothing to walk: class, enum, using.
type skipStmt struct{}

func (*chainStmt) stmtNode()  {}
func (*pipeline) stmtNode()   {}
func (*assignStmt) stmtNode() {}
func (*ifStmt) stmtNode()     {}
func (*loopStmt) stmtNode()   {}
func (*switchStmt) stmtNode() {}
func (*tryStmt) stmtNode()    {}
func (*blockStmt) stmtNode()  {}
func (*funcDef) stmtNode()    {}
func (*flowStmt) stmtNode()   {}
func (*paramStmt) stmtNode()  {}
func (*skipStmt) stmtNode()   {}

// command is a command element of a pipeline. invoke is "&", "." or "".
type command struct {
	pos    int
	invoke string
	name   expr
	args   []*cmdArg
	redirs []*redir
	// stop is the text after --%, when hasStop.
	stop    string
	hasStop bool
}

// cmdArg is one command argument: a parameter token (param, with the
// value in val when colon is set), a splatted variable (splat), or a
// value. A comma list (a,b) is an *arrayLit value.
type cmdArg struct {
	pos   int
	param string
	colon bool
	splat string
	val   expr
}

// exprElem is an expression at the head of a pipeline.
type exprElem struct {
	pos    int
	x      expr
	redirs []*redir
}

// redir is a redirection: op ">", ">>" or "<", fd 0 for *, merge for
// n>&m (no target).
type redir struct {
	op     string
	fd     int
	merge  bool
	target expr
}

func (*command) elemNode()  {}
func (*exprElem) elemNode() {}

// scriptBlock is { ... }: the text between the braces, its file, the
// default values of its parameters and its statements (named blocks
// flattened in order).
type scriptBlock struct {
	pos  int
	f    *file
	text string
	body []stmt
}

type strLit struct{ s string }

type numLit struct {
	n    float64
	text string
}

// expandStr is a double-quoted string, or a bareword when bare: literal
// parts (*strLit) and expansions.
type expandStr struct {
	parts []expr
	bare  bool
}

// varExpr is $name; name keeps its scope or drive prefix (env:PATH).
type varExpr struct {
	pos  int
	name string
}

// subExpr is $( ), @( ) or ( ), kind '$', '@' or '('.
type subExpr struct {
	kind  byte
	stmts []stmt
}

type hashLit struct {
	keys []expr
	vals []stmt
}

type blockLit struct{ sb *scriptBlock }

type typeLit struct{ name string }

type castExpr struct {
	typ string
	x   expr
}

// memberExpr is x.name, x::name (static), with args when call.
type memberExpr struct {
	pos    int
	x      expr
	name   expr
	static bool
	call   bool
	args   []expr
}

type indexExpr struct {
	x, idx expr
}

type unaryExpr struct {
	op string
	x  expr
}

type binExpr struct {
	op   string
	x, y expr
}

type arrayLit struct{ elems []expr }

func (*strLit) exprNode()     {}
func (*numLit) exprNode()     {}
func (*expandStr) exprNode()  {}
func (*varExpr) exprNode()    {}
func (*subExpr) exprNode()    {}
func (*hashLit) exprNode()    {}
func (*blockLit) exprNode()   {}
func (*typeLit) exprNode()    {}
func (*castExpr) exprNode()   {}
func (*memberExpr) exprNode() {}
func (*indexExpr) exprNode()  {}
func (*unaryExpr) exprNode()  {}
func (*binExpr) exprNode()    {}
func (*arrayLit) exprNode()   {}

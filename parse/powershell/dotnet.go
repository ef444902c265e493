package powershell

import (
	"encoding/base64"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cordonsh/cordon/winargs"
)

// Types the walker knows by name.
const (
	typeEngine      = "System.Management.Automation.EngineIntrinsics"
	typeInvoke      = "System.Management.Automation.CommandInvocationIntrinsics"
	typeScriptBlock = "System.Management.Automation.ScriptBlock"
	typeEncoding    = "System.Text.Encoding"
	typeWebClient   = "System.Net.WebClient"
)

// typeNames maps type names and accelerators (lower case, without
// "system.") to full names.
var typeNames = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"io.file": "System.IO.File", "io.directory": "System.IO.Directory", "io.path": "System.IO.Path",
		"io.fileinfo": "System.IO.FileInfo", "io.directoryinfo": "System.IO.DirectoryInfo",
		"io.streamwriter": "System.IO.StreamWriter", "io.compression.zipfile": "System.IO.Compression.ZipFile",
		"io.memorystream": "System.IO.MemoryStream", "io.compression.gzipstream": "System.IO.Compression.GZipStream",
		"io.compression.deflatestream": "System.IO.Compression.DeflateStream", "io.streamreader": "System.IO.StreamReader",
		"environment": "System.Environment", "convert": "System.Convert", "text.encoding": typeEncoding,
		"scriptblock": typeScriptBlock, "management.automation.scriptblock": typeScriptBlock,
		"diagnostics.process": "System.Diagnostics.Process", "diagnostics.processstartinfo": "System.Diagnostics.ProcessStartInfo",
		"net.webclient": typeWebClient, "net.http.httpclient": "System.Net.Http.HttpClient",
		"net.webrequest": "System.Net.WebRequest", "net.servicepointmanager": "System.Net.ServicePointManager",
		"net.sockets.tcpclient": "System.Net.Sockets.TcpClient", "net.sockets.udpclient": "System.Net.Sockets.UdpClient",
		"net.sockets.socket": "System.Net.Sockets.Socket", "io.filestream": "System.IO.FileStream", "net.dns": "System.Net.Dns",
		"string": "System.String", "char": "System.Char", "int": "System.Int32", "long": "System.Int64",
		"byte": "System.Byte", "bool": "System.Boolean", "array": "System.Array", "math": "System.Math",
		"regex": "System.Text.RegularExpressions.Regex", "text.regularexpressions.regex": "System.Text.RegularExpressions.Regex",
		"reflection.assembly": "System.Reflection.Assembly", "activator": "System.Activator",
		"runtime.interopservices.marshal": "System.Runtime.InteropServices.Marshal",
		"powershell":                      "System.Management.Automation.PowerShell", "management.automation.powershell": "System.Management.Automation.PowerShell",
		"microsoft.win32.registry": "Microsoft.Win32.Registry", "microsoft.win32.registrykey": "Microsoft.Win32.RegistryKey",
		"threading.thread": "System.Threading.Thread", "guid": "System.Guid", "datetime": "System.DateTime", "uri": "System.Uri",
		"type": "System.Type", "object": "System.Object", "hashtable": "System.Collections.Hashtable",
		"psobject": "System.Management.Automation.PSObject", "pscustomobject": "System.Management.Automation.PSObject",
		"security.principal.windowsidentity": "System.Security.Principal.WindowsIdentity",
		"windows.forms.clipboard":            "System.Windows.Forms.Clipboard", "wmiclass": "System.Management.ManagementClass",
		"adsi": "System.DirectoryServices.DirectoryEntry", "xml": "System.Xml.XmlDocument",
		"text.stringbuilder": "System.Text.StringBuilder", "bitconverter": "System.BitConverter",
	}
})

// fullType returns the full name of a type as written in [ ].
func fullType(name string) string {
	name = strings.ReplaceAll(name, " ", "")
	lower := strings.ToLower(name)
	if t, ok := typeNames()[strings.TrimPrefix(lower, "system.")]; ok {
		return t
	}
	if strings.HasPrefix(lower, "system.") || strings.HasPrefix(lower, "microsoft.") || strings.ContainsAny(name, "[]") {
		return name
	}
	return "System." + name
}

// methodNames gives the canonical case of well-known method names.
var methodNames = sync.OnceValue(func() map[string]string {
	names := map[string]string{}
	for _, m := range strings.Fields(`Delete WriteAllText WriteAllBytes WriteAllLines AppendAllText AppendAllLines
			Copy Move Replace ReadAllText ReadAllBytes ReadAllLines Exists Create Open OpenWrite SetAttributes Encrypt
			Decrypt CreateDirectory GetFiles EnumerateFiles GetDirectories SetEnvironmentVariable GetEnvironmentVariable
			ExpandEnvironmentVariables Exit GetFolderPath FailFast FromBase64String ToBase64String Start DownloadString
			DownloadFile DownloadData UploadString UploadFile UploadData OpenRead Combine GetTempPath GetString GetBytes
			Join Concat Format ConvertFromUtf32 Load LoadFile LoadFrom LoadWithPartialName CreateInstance InvokeScript
			NewScriptBlock GetCommand GetCmdlet ExpandString Invoke InvokeReturnAsIs AddScript AddCommand
			ExtractToDirectory CreateFromDirectory SetValue GetValue DeleteValue DeleteSubKeyTree CreateSubKey OpenSubKey
			ShellExecute Run Exec GetStringAsync GetAsync SecurityProtocol DeleteFolder DeleteFile CopyFile CopyFolder
			MoveFile MoveFolder CreateTextFile OpenTextFile CreateFolder CreateShortcut`) {
		names[strings.ToLower(m)] = m
	}
	return names
})

// canonMethod returns a method name in its canonical case when known.
func canonMethod(name string) string {
	if m, ok := methodNames()[strings.ToLower(name)]; ok {
		return m
	}
	return name
}

// member evaluates x.name, x::name and the method calls among them.
func (w *walker) member(m *memberExpr) value {
	base := w.eval(m.x)
	nameV := w.eval(m.name)
	var args []value
	for _, a := range m.args {
		args = append(args, w.eval(a))
	}
	if !nameV.known() {
		return unknownValue
	}
	name := canonMethod(nameV.str())
	if m.static && base.k == kType {
		if m.call {
			return w.staticCall(m, base.s, name, args)
		}
		return staticProperty(base.s, name)
	}
	if m.call {
		return w.methodCall(m, base, name, args)
	}
	if v, ok := w.profileProperty(base, strings.ToLower(name)); ok {
		return v
	}
	return property(base, name)
}

// call reports a method call as a command.
func (w *walker) call(m *memberExpr, name string, args []value) int {
	c := Command{Name: name, Pos: w.f.position(m.pos), StdinFrom: -1}
	for i, a := range args {
		for j, e := range a.elems() {
			c.Args = append(c.Args, Arg{Text: e.str(), Computed: a.comp || !isLiteral(m.args[i]), More: j > 0})
		}
	}
	return w.emit(c)
}

// staticCall evaluates [type]::name(args), reported as a command.
func (w *walker) staticCall(m *memberExpr, typ, name string, args []value) value {
	idx := w.call(m, "["+typ+"]::"+name, args)
	arg := func(i int) value {
		if i < len(args) {
			return args[i]
		}
		return value{k: kNull}
	}
	switch typ + "::" + strings.ToLower(name) {
	case "System.Convert::frombase64string":
		clean := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, arg(0).str())
		raw, err := base64.StdEncoding.DecodeString(clean)
		if err != nil || !arg(0).known() || !w.grow(len(raw)) {
			return unknownValue
		}
		return value{k: kBytes, raw: raw, comp: true}
	case "System.String::join":
		if len(args) == 2 {
			return w.join(arg(1).elems(), arg(0).str())
		}
		return w.join(args[1:], arg(0).str())
	case "System.String::concat":
		var elems []value
		for _, a := range args {
			elems = append(elems, a.elems()...)
		}
		return w.join(elems, "")
	case "System.String::format":
		if len(args) > 0 {
			return w.format(arg(0).str(), args[1:])
		}
	case "System.Char::convertfromutf32":
		return toChar(arg(0))
	case typeScriptBlock + "::create":
		b := w.makeBlock(arg(0), m.pos)
		if b.sb == nil {
			w.unknownCode(idx)
		}
		return blockOf(b)
	case "System.Environment::getenvironmentvariable":
		if len(args) == 1 && arg(0).known() {
			v, _ := w.getenv(arg(0).str())
			return v.withComp(true)
		}
	case "System.Environment::expandenvironmentvariables":
		if arg(0).known() {
			return computedStr(winargs.ExpandPercent(arg(0).str(), w.getenvString))
		}
	case "System.IO.Path::gettemppath":
		return computedStr(w.tempDir(""))
	case "System.IO.Path::gettempfilename":
		return computedStr(w.tempDir("tmp0000.tmp"))
	case "System.IO.Path::getfullpath":
		if arg(0).known() && arg(0).k != kArr {
			return w.known(w.resolvePath(w.dir, arg(0).str())).withComp(true)
		}
	case "System.Environment::getfolderpath":
		return w.specialFolder(arg(0))
	case "System.IO.Path::combine":
		p := ""
		for _, a := range args {
			p = lexicalJoin(p, a.str())
		}
		return computedStr(p)
	case "System.Diagnostics.Process::start":
		if len(args) > 0 && args[0].k != kObj {
			w.carryLine(arg(0), arg(1).str(), "["+typ+"]::Start", false, "", m.pos)
		}
	}
	if strings.EqualFold(name, "new") {
		return objValue(typ)
	}
	return unknownValue
}

// getenvString is getenv for winargs.ExpandPercent.
func (w *walker) getenvString(name string) (string, bool) {
	v, ok := w.getenv(name)
	return v.str(), ok
}

// makeBlock parses code into a script block, as [ScriptBlock]::Create.
func (w *walker) makeBlock(code value, off int) *blockValue {
	b := &blockValue{via: []string{"[ScriptBlock]::Create"}}
	if !code.known() {
		return b
	}
	f := newFile(code.str())
	stmts, err := parseScript(f, w.core)
	if err != nil {
		saved := w.f
		w.f = f
		w.problem(ProblemSyntax, err.off, err.msg)
		w.f = saved
	}
	b.sb = &scriptBlock{f: f, text: code.str(), body: stmts}
	return b
}

// staticProperty evaluates [type]::name.
func staticProperty(typ, name string) value {
	lower := strings.ToLower(name)
	switch typ {
	case typeEncoding:
		v := objValue(typeEncoding)
		v.extra = lower
		return v
	case "System.Environment":
		if lower == "newline" {
			return strValue("\r\n")
		}
	}
	return unknownValue
}

// property evaluates x.name.
func property(x value, name string) value {
	lower := strings.ToLower(name)
	if v, ok := itemProperty(x, lower); ok {
		return v
	}
	switch {
	case x.k == kHash:
		if v, ok := x.hashGet(name); ok {
			return v.withComp(true)
		}
		if lower == "count" || lower == "keys" {
			return unknownValue
		}
	case (lower == "length" || lower == "count") && x.k == kStr && x.known():
		return numValue(float64(utf8.RuneCountInString(x.s))).withComp(true)
	case (lower == "length" || lower == "count") && (x.k == kArr || x.k == kBytes):
		return numValue(float64(len(x.elems()))).withComp(true)
	case x.k == kObj && x.s == typeEngine && lower == "invokecommand":
		return objValue(typeInvoke)
	case x.k == kArr && len(x.arr) > 0 && x.arr[0].extra == itemMark:
		// Member enumeration: (Get-ChildItem).FullName is every item's.
		out := make([]value, len(x.arr))
		for i, e := range x.arr {
			out[i] = property(e, name)
		}
		return value{k: kArr, arr: out, comp: true}
	}
	return unknownValue
}

// constructors are the types whose construction is reported as a
// command ([System.Net.Sockets.TcpClient]::new): making one acts.
var constructors = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"System.Net.Sockets.TcpClient": true, "System.Net.Sockets.UdpClient": true, "System.Net.Sockets.Socket": true,
		"System.IO.StreamWriter": true, "System.IO.FileStream": true,
	}
})

// recognised are the object types whose method calls are reported as
// commands.
var recognised = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"Scripting.FileSystemObject": true, typeWebClient: true, "System.Net.Http.HttpClient": true, typeInvoke: true,
		"WScript.Shell": true, "Shell.Application": true, "System.Diagnostics.Process": true,
		"System.Management.Automation.PowerShell": true,
	}
})

// methodCall evaluates x.name(args).
func (w *walker) methodCall(m *memberExpr, x value, name string, args []value) value {
	idx := -1
	if x.k == kObj && recognised()[x.s] {
		idx = w.call(m, "["+x.s+"]."+name, args)
	}
	arg := func(i int) value {
		if i < len(args) {
			return args[i]
		}
		return value{k: kNull}
	}
	lower := strings.ToLower(name)
	if w.itemMethod(m, x, lower, args) {
		return unknownValue
	}
	switch x.k {
	case kStr:
		return w.stringMethod(x, lower, args)
	case kBlock:
		if lower == "invoke" || lower == "invokereturnasis" || lower == "invokewithcontext" {
			if !w.runBlock(x.blk, "& {}", true, m.pos) {
				i := w.emit(Command{Name: Unknown, Pos: w.f.position(m.pos), StdinFrom: -1})
				w.unknownCode(i)
			}
		}
		if lower == "getnewclosure" {
			return x
		}
		return unknownValue
	case kObj:
	default:
		return unknownValue
	}
	switch x.s + "." + lower {
	case typeEncoding + ".getstring":
		return w.decode(x.extra, arg(0))
	case typeInvoke + ".invokescript":
		if !arg(0).known() || !w.runText(arg(0).str(), "InvokeScript", m.pos) {
			w.unknownCode(idx)
		}
	case typeInvoke + ".newscriptblock":
		b := w.makeBlock(arg(0), m.pos)
		b.via = []string{"NewScriptBlock"}
		return blockOf(b)
	case typeInvoke + ".getcommand", typeInvoke + ".getcmdlet":
		return arg(0).withComp(true)
	case "WScript.Shell.run", "WScript.Shell.exec":
		w.carryLine(arg(0), "", "[WScript.Shell]."+name, false, "", m.pos)
	case "Shell.Application.shellexecute":
		w.carryLine(arg(0), arg(1).str(), "[Shell.Application].ShellExecute", strings.EqualFold(arg(3).str(), "runas"), arg(2).str(), m.pos)
	}
	return unknownValue
}

// stringMethod evaluates the string methods used to build code.
func (w *walker) stringMethod(x value, name string, args []value) value {
	if !x.known() {
		return unknownValue
	}
	s := x.s
	arg := func(i int) (string, bool) {
		if i < len(args) && args[i].known() {
			return args[i].str(), true
		}
		return "", false
	}
	a0, ok0 := arg(0)
	a1, ok1 := arg(1)
	var out string
	switch name {
	case "replace":
		if !ok0 || !ok1 || a0 == "" {
			return unknownValue
		}
		out = strings.ReplaceAll(s, a0, a1)
	case "tolower", "tolowerinvariant":
		out = strings.ToLower(s)
	case "toupper", "toupperinvariant":
		out = strings.ToUpper(s)
	case "tostring", "normalize", "clone":
		out = s
	case "trim", "trimstart", "trimend":
		cut := " \t\r\n\v\f"
		if len(args) > 0 {
			if !ok0 {
				return unknownValue
			}
			cut = a0
		}
		switch name {
		case "trim":
			out = strings.Trim(s, cut)
		case "trimstart":
			out = strings.TrimLeft(s, cut)
		default:
			out = strings.TrimRight(s, cut)
		}
	case "substring":
		r := []rune(s)
		n0, okn := args0num(args, 0)
		if !okn || n0 < 0 || n0 > len(r) {
			return unknownValue
		}
		end := len(r)
		if len(args) > 1 {
			n1, ok := args0num(args, 1)
			if !ok || n1 < 0 || n0+n1 > len(r) {
				return unknownValue
			}
			end = n0 + n1
		}
		out = string(r[n0:end])
	case "split":
		if !ok0 {
			return unknownValue
		}
		var parts []string
		if w.core && len(a0) > 1 {
			parts = strings.Split(s, a0)
		} else {
			parts = strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(a0, r) })
			if a0 == "" {
				parts = strings.Fields(s)
			}
		}
		var vals []value
		for _, p := range parts {
			vals = append(vals, strValue(p))
		}
		return value{k: kArr, arr: vals, comp: true}
	case "tochararray":
		return w.cast("char[]", x)
	case "insert":
		n0, ok := args0num(args, 0)
		r := []rune(s)
		if !ok || !ok1 || n0 < 0 || n0 > len(r) {
			return unknownValue
		}
		out = string(r[:n0]) + a1 + string(r[n0:])
	default:
		return unknownValue
	}
	if !w.grow(len(out)) {
		return unknownValue
	}
	return computedStr(out)
}

func args0num(args []value, i int) (int, bool) {
	if i >= len(args) {
		return 0, false
	}
	n, ok := args[i].num()
	return int(n), ok && args[i].k != kUnknown
}

// decode is Encoding.GetString for the encoding named enc.
func (w *walker) decode(enc string, v value) value {
	var raw []byte
	switch v.k {
	case kBytes:
		raw = v.raw
	case kArr:
		c := w.cast("byte[]", v)
		if c.k != kBytes {
			return unknownValue
		}
		raw = c.raw
	default:
		return unknownValue
	}
	var out string
	switch enc {
	case "unicode", "bigendianunicode":
		if len(raw)%2 != 0 {
			return unknownValue
		}
		u := make([]uint16, len(raw)/2)
		for i := range u {
			if enc == "unicode" {
				u[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
			} else {
				u[i] = uint16(raw[2*i])<<8 | uint16(raw[2*i+1])
			}
		}
		out = string(utf16.Decode(u))
	case "utf8":
		out = strings.ToValidUTF8(string(raw), "\uFFFD")
	case "default":
		if w.core {
			out = strings.ToValidUTF8(string(raw), "\uFFFD")
			break
		}
		fallthrough
	case "latin1":
		r := make([]rune, len(raw))
		for i, b := range raw {
			r[i] = rune(b)
		}
		out = string(r)
	case "ascii":
		r := make([]rune, len(raw))
		for i, b := range raw {
			r[i] = rune(b)
			if b > 127 {
				r[i] = '?'
			}
		}
		out = string(r)
	case "utf32":
		if len(raw)%4 != 0 {
			return unknownValue
		}
		r := make([]rune, len(raw)/4)
		for i := range r {
			r[i] = rune(uint32(raw[4*i]) | uint32(raw[4*i+1])<<8 | uint32(raw[4*i+2])<<16 | uint32(raw[4*i+3])<<24)
		}
		out = string(r)
	default:
		return unknownValue
	}
	if !w.grow(len(out)) {
		return unknownValue
	}
	return computedStr(out)
}

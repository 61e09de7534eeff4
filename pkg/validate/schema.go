package validate

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The snapshot shipped with clawtap: regenerated from the npm package by
// scripts/update-protocol-schema.sh, never edited by hand.
var (
	//go:embed schema/protocol.schema.json
	snapshotJSON []byte
	//go:embed schema/VERSION
	snapshotVersion string
	//go:embed schema/LICENSE
	snapshotLicense string
)

// SnapshotName names the embedded schema's package and version, without
// loading it: "@openclaw/gateway-protocol 2026.9.1".
func SnapshotName() string {
	return versionField(snapshotVersion, "package") + " " + versionField(snapshotVersion, "version")
}

// SnapshotLicense is the licence of the embedded schema (MIT), shipped with
// it in the binary.
func SnapshotLicense() string { return snapshotLicense }

// rootFile is the schema's file name in the npm package and in a --schema
// directory.
const rootFile = "protocol.schema.json"

// maxSchemaFiles bounds the JSON files read from a --schema directory.
const maxSchemaFiles = 1000

// Schema is a loaded protocol schema: the frame envelopes, the named
// definitions, the method list. Definitions are compiled on first use and
// kept; a Schema is safe for concurrent use.
type Schema struct {
	// Name says which schema this is: "@openclaw/gateway-protocol 2026.9.1"
	// for the snapshot, the path for a user's schema.
	Name string
	// Version is the package version the schema came from, when known.
	Version string

	root    string            // URL of the root document
	defsKey string            // "definitions" (draft-07) or "$defs"
	defs    map[string]bool   // definition names
	folded  map[string]string // lower-case name → name
	methods map[string]bool   // the document's method list (an OpenClaw extension)
	frames  map[string]string // frame type → definition name, from the discriminator

	mu       sync.Mutex
	comp     *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	failed   map[string]error

	pats patterns // the patterns' time account (regexp.go)
}

var loadEmbedded = sync.OnceValues(func() (*Schema, error) {
	s, err := parse(snapshotJSON, "", nil)
	if err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	release(snapshotJSON)
	s.Version = versionField(snapshotVersion, "version")
	s.Name = SnapshotName()
	return s, nil
})

// Embedded returns the schema snapshot built into clawtap. It is parsed
// once per process.
func Embedded() (*Schema, error) { return loadEmbedded() }

// versionField reads key=value from a VERSION file.
func versionField(v, key string) string {
	for _, line := range strings.Split(v, "\n") {
		if k, val, ok := strings.Cut(strings.TrimSpace(line), "="); ok && k == key {
			return val
		}
	}
	return ""
}

// Load reads a user's schema: a protocol.schema.json file, or a directory
// holding one (an unpacked npm package, or pkg/validate/schema of another
// clawtap). In a directory every other .json file is available to $ref
// under its file URL and its $id; a lone file reaches others through file:
// URLs. Only files in the schema's folder (the directory, or the file's
// own) are read, and never through a link that leads out of it; a $ref
// elsewhere is an error. Nothing is ever fetched from the network.
func Load(path string) (*Schema, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	dir, rootPath := filepath.Dir(abs), abs
	var extra []string
	if fi.IsDir() {
		dir = abs
		rootPath, extra, err = scanDir(abs)
		if err != nil {
			return nil, err
		}
	}
	folder, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer folder.Close()
	fl := &folderLoader{dir: dir, root: folder}
	var b []byte
	if fi.IsDir() {
		b, err = fl.read(rootPath)
	} else {
		b, err = os.ReadFile(rootPath) // the file named: read as named
	}
	if err != nil {
		return nil, err
	}
	s, err := parseIn(b, fileURL(rootPath), extra, fl)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rootPath, err)
	}
	s.Name = path
	s.Version = dirVersion(dir)
	// A user's schema is compiled whole now, so a broken one is a usage
	// error up front rather than a surprise halfway through a capture.
	if err := s.compileAll(); err != nil {
		return nil, fmt.Errorf("%s: %w", rootPath, err)
	}
	return s, nil
}

// scanDir finds the root document of a schema directory and the other
// JSON files in it.
func scanDir(dir string) (root string, extra []string, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "node_modules" && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.EqualFold(filepath.Ext(p), ".json") || d.Name() == "package.json" {
			return nil
		}
		if d.Name() == rootFile && (root == "" || len(p) < len(root)) {
			if root != "" {
				extra = append(extra, root)
			}
			root = p
			return nil
		}
		if len(extra) >= maxSchemaFiles {
			return fmt.Errorf("%s: more than %d JSON files", dir, maxSchemaFiles)
		}
		extra = append(extra, p)
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	if root == "" {
		return "", nil, fmt.Errorf("%s: no %s in it", dir, rootFile)
	}
	slices.Sort(extra)
	return root, extra, nil
}

// dirVersion is the version a schema directory names: its VERSION file
// (as the update script writes it) or the package.json of an npm package.
func dirVersion(dir string) string {
	if b, err := os.ReadFile(filepath.Join(dir, "VERSION")); err == nil {
		if v := versionField(string(b), "version"); v != "" {
			return v
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
		var p struct{ Version string }
		if json.Unmarshal(b, &p) == nil {
			return p.Version
		}
	}
	return ""
}

func fileURL(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// folderLoader reads the files of a schema's folder for $ref: file: URLs
// within dir, through an os.Root, so that neither "../" nor a link leads
// out of it.
type folderLoader struct {
	dir  string
	root *os.Root
}

// errOutside is a $ref to a file outside the schema's folder.
type errOutside struct{ path, dir string }

func (e *errOutside) Error() string {
	return fmt.Sprintf("%s is outside the schema's folder %s: a --schema reads only files in its folder", e.path, e.dir)
}

// read returns the bytes of the file at path (absolute), which must be in
// the folder.
func (l *folderLoader) read(path string) ([]byte, error) {
	rel, err := filepath.Rel(l.dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, &errOutside{path, l.dir}
	}
	f, err := l.root.Open(rel)
	if err != nil {
		if strings.Contains(err.Error(), "escapes") {
			return nil, &errOutside{path + " (a link)", l.dir}
		}
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, maxSchemaBytes+1))
}

// maxSchemaBytes bounds one schema file (the published schema is 3.5 MB).
const maxSchemaBytes = 64 << 20

// Load implements jsonschema.URLLoader for file: URLs.
func (l *folderLoader) Load(u string) (any, error) {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme != "file" {
		return nil, fmt.Errorf("%s: only files in the schema's folder are read", u)
	}
	b, err := l.read(filepath.Clean(filepath.FromSlash(pu.Path)))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSchemaBytes {
		return nil, fmt.Errorf("%s is larger than %d MB", u, maxSchemaBytes>>20)
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// parse reads the root document and prepares a compiler for it. base is the
// document's URL when it has no $id ("" for the snapshot); extra are more
// JSON files to offer to $ref. The embedded snapshot reads no file.
func parse(b []byte, base string, extra []string) (*Schema, error) {
	return parseIn(b, base, extra, nil)
}

// parseIn is parse for a schema in a folder (fl), whose files $ref reads.
func parseIn(b []byte, base string, extra []string, fl *folderLoader) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	doc = share(doc)
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON Schema document (not an object)")
	}
	s := &Schema{
		defs:     map[string]bool{},
		folded:   map[string]string{},
		methods:  map[string]bool{},
		frames:   map[string]string{},
		compiled: map[string]*jsonschema.Schema{},
		failed:   map[string]error{},
	}
	s.root = base
	if id, ok := top["$id"].(string); ok && id != "" {
		// A relative $id resolves against where the document is.
		if u, err := url.Parse(id); err == nil && (u.IsAbs() || base != "") {
			if b, err := url.Parse(base); err == nil && !u.IsAbs() {
				u = b.ResolveReference(u)
			}
			s.root = strings.TrimSuffix(u.String(), "#")
		}
	}
	if s.root == "" {
		s.root = "urn:clawtap:" + rootFile
	}
	for _, key := range []string{"definitions", "$defs"} {
		if m, ok := top[key].(map[string]any); ok && len(m) > 0 {
			s.defsKey = key
			for name := range m {
				s.defs[name] = true
				s.folded[strings.ToLower(name)] = name
			}
			break
		}
	}
	if s.defsKey == "" {
		return nil, errors.New("no definitions (neither definitions nor $defs)")
	}
	if m, ok := top["methods"].(map[string]any); ok {
		for name := range m {
			s.methods[name] = true
		}
	}
	s.frames = frameDefs(top, s.defs)

	c := jsonschema.NewCompiler()
	c.UseRegexpEngine(ecmaEngine(&s.pats))
	// Only the files of the schema's folder, and only through $ref: never
	// another file, never the network.
	if fl != nil {
		c.UseLoader(jsonschema.SchemeURLLoader{"file": fl})
	} else {
		c.UseLoader(jsonschema.SchemeURLLoader{})
	}
	if err := c.AddResource(s.root, doc); err != nil {
		return nil, err
	}
	for _, p := range extra {
		if err := addFile(c, p, fl); err != nil {
			return nil, err
		}
	}
	s.comp = c
	return s, nil
}

// addFile offers a JSON file of the folder to $ref under its file URL and
// its $id.
func addFile(c *jsonschema.Compiler, path string, fl *folderLoader) error {
	b, err := fl.read(path)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s: not JSON: %w", path, err)
	}
	doc = share(doc)
	if err := c.AddResource(fileURL(path), doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if m, ok := doc.(map[string]any); ok {
		if id, ok := m["$id"].(string); ok && id != "" {
			if err := c.AddResource(strings.TrimSuffix(id, "#"), doc); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return nil
}

// frameDefs maps frame types to definitions: the root's discriminator
// mapping ("#/definitions/RequestFrame"), else the usual names.
func frameDefs(top map[string]any, defs map[string]bool) map[string]string {
	out := map[string]string{}
	if d, ok := top["discriminator"].(map[string]any); ok {
		if m, ok := d["mapping"].(map[string]any); ok {
			for typ, ref := range m {
				r, _ := ref.(string)
				name := r[strings.LastIndexByte(r, '/')+1:]
				if defs[name] {
					out[typ] = name
				}
			}
		}
	}
	for typ, name := range map[string]string{"req": "RequestFrame", "res": "ResponseFrame", "event": "EventFrame"} {
		if _, ok := out[typ]; !ok && defs[name] {
			out[typ] = name
		}
	}
	return out
}

// Definitions returns the definition names, sorted.
func (s *Schema) Definitions() []string {
	names := make([]string, 0, len(s.defs))
	for n := range s.defs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Methods returns the schema's method list, sorted.
func (s *Schema) Methods() []string {
	names := make([]string, 0, len(s.methods))
	for n := range s.methods {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// compile returns the compiled definition name ("" for the root).
func (s *Schema) compile(name string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch := s.compiled[name]; sch != nil {
		return sch, nil
	}
	if err := s.failed[name]; err != nil {
		return nil, err
	}
	ref := s.root
	if name != "" {
		ref += "#/" + s.defsKey + "/" + escapeToken(name)
	}
	sch, err := s.comp.Compile(ref)
	if err != nil {
		err = fmt.Errorf("compile %s: %w", orRoot(name), err)
		s.failed[name] = err
		return nil, err
	}
	s.compiled[name] = sch
	return sch, nil
}

func orRoot(name string) string {
	if name == "" {
		return "the root schema"
	}
	return name
}

// compileAll compiles every definition, joining the errors.
func (s *Schema) compileAll() error {
	var errs []error
	for _, name := range s.Definitions() {
		if _, err := s.compile(name); err != nil {
			errs = append(errs, err)
			if len(errs) == 5 {
				break
			}
		}
	}
	return errors.Join(errs...)
}

// escapeToken escapes one JSON pointer token (RFC 6901).
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

package gateway

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Identity is a device identity: an Ed25519 key pair whose public key's
// sha256 is the device id the gateway pairs and issues tokens to.
type Identity struct {
	DeviceID   string // lowercase hex sha256 of the raw 32-byte public key
	PublicKey  ed25519.PublicKey
	PrivateKey ed25519.PrivateKey
}

// NewIdentity creates an identity from the given randomness (crypto/rand
// when nil).
func NewIdentity(random io.Reader) (*Identity, error) {
	if random == nil {
		random = rand.Reader
	}
	pub, priv, err := ed25519.GenerateKey(random)
	if err != nil {
		return nil, fmt.Errorf("create device key: %w", err)
	}
	return identityFromKey(pub, priv), nil
}

func identityFromKey(pub ed25519.PublicKey, priv ed25519.PrivateKey) *Identity {
	sum := sha256.Sum256(pub)
	return &Identity{DeviceID: hex.EncodeToString(sum[:]), PublicKey: pub, PrivateKey: priv}
}

// PublicKeyBase64URL is the raw public key in unpadded base64url, as the
// connect request's device.publicKey carries it.
func (id *Identity) PublicKeyBase64URL() string {
	return base64.RawURLEncoding.EncodeToString(id.PublicKey)
}

// Sign signs payload and returns the unpadded base64url signature.
func (id *Identity) Sign(payload string) string {
	return base64.RawURLEncoding.EncodeToString(ed25519.Sign(id.PrivateKey, []byte(payload)))
}

// SignatureFields are the values the gateway checks a device signature over.
type SignatureFields struct {
	DeviceID     string
	ClientID     string
	ClientMode   string
	Role         string
	Scopes       []string
	SignedAtMs   int64
	Token        string // the token sent as auth.token (or the device token), "" when none
	Nonce        string
	Platform     string
	DeviceFamily string
}

// SignaturePayloadV3 is the exact UTF-8 string a v3 device signature covers:
// v3|deviceId|clientId|clientMode|role|scopes(csv)|signedAtMs|token|nonce|platform|deviceFamily,
// with platform and deviceFamily trimmed and ASCII-lowercased.
func SignaturePayloadV3(f SignatureFields) string {
	return strings.Join([]string{
		"v3",
		f.DeviceID,
		f.ClientID,
		f.ClientMode,
		f.Role,
		strings.Join(f.Scopes, ","),
		fmt.Sprint(f.SignedAtMs),
		f.Token,
		f.Nonce,
		normalizeMeta(f.Platform),
		normalizeMeta(f.DeviceFamily),
	}, "|")
}

// normalizeMeta trims and lowercases ASCII letters only, like the gateway.
func normalizeMeta(s string) string {
	s = strings.TrimSpace(s)
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// DefaultStoreDir is where clawtap keeps its device identity and device
// tokens: the user's config directory plus "clawtap".
func DefaultStoreDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the config directory: %w", err)
	}
	return filepath.Join(dir, "clawtap"), nil
}

// Store keeps the device identity and the device tokens gateways hand out,
// in files readable only by the user (0600, directory 0700).
type Store struct {
	Dir  string
	Rand io.Reader        // randomness for a new identity; crypto/rand when nil
	Now  func() time.Time // time.Now when nil

	mu sync.Mutex
}

const (
	identityFile = "device-identity.json"
	tokensFile   = "device-tokens.json"
)

type identityJSON struct {
	Version     int    `json:"version"`
	DeviceID    string `json:"deviceId"`
	PublicKey   string `json:"publicKey"`  // raw, base64url
	PrivateKey  string `json:"privateKey"` // 32-byte seed, base64url
	CreatedAtMs int64  `json:"createdAtMs"`
}

type tokenEntry struct {
	DeviceID  string   `json:"deviceId"`
	Token     string   `json:"token"`
	Scopes    []string `json:"scopes,omitempty"`
	SavedAtMs int64    `json:"savedAtMs"`
}

type tokensJSON struct {
	Version int                   `json:"version"`
	Tokens  map[string]tokenEntry `json:"tokens"`
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Path returns the path of the identity file.
func (s *Store) Path() string { return filepath.Join(s.Dir, identityFile) }

// Identity loads the device identity, creating and saving it the first time.
// Two processes racing to create it end up with the same one.
func (s *Store) Identity() (*Identity, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, err := s.loadIdentity(); err == nil {
		return id, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	id, err := NewIdentity(s.Rand)
	if err != nil {
		return nil, err
	}
	rec := identityJSON{
		Version:     1,
		DeviceID:    id.DeviceID,
		PublicKey:   id.PublicKeyBase64URL(),
		PrivateKey:  base64.RawURLEncoding.EncodeToString(id.PrivateKey.Seed()),
		CreatedAtMs: s.now().UnixMilli(),
	}
	b, _ := json.MarshalIndent(rec, "", "  ")
	created, err := s.writeFile(identityFile, append(b, '\n'), true)
	if err != nil {
		return nil, err
	}
	if !created { // someone else won the race: use theirs
		return s.loadIdentity()
	}
	return id, nil
}

func (s *Store) loadIdentity() (*Identity, error) {
	b, err := os.ReadFile(s.Path())
	if err != nil {
		return nil, err
	}
	var rec identityJSON
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("read device identity %s: %v (move it away to create a new identity)", s.Path(), err)
	}
	seed, err := base64.RawURLEncoding.DecodeString(rec.PrivateKey)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("read device identity %s: bad private key (move it away to create a new identity)", s.Path())
	}
	priv := ed25519.NewKeyFromSeed(seed)
	id := identityFromKey(priv.Public().(ed25519.PublicKey), priv)
	if rec.DeviceID != "" && rec.DeviceID != id.DeviceID {
		return nil, fmt.Errorf("read device identity %s: device id does not match its key", s.Path())
	}
	return id, nil
}

// writeFile writes name atomically with mode 0600. With exclusive set it
// never replaces an existing file and reports whether it created it.
func (s *Store) writeFile(name string, data []byte, exclusive bool) (bool, error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return false, fmt.Errorf("create %s: %w", s.Dir, err)
	}
	tmp, err := os.CreateTemp(s.Dir, "."+name+".*")
	if err != nil {
		return false, fmt.Errorf("write %s: %w", name, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return false, err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return false, fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	final := filepath.Join(s.Dir, name)
	if exclusive {
		if err := os.Link(tmp.Name(), final); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return false, nil
			}
			return false, fmt.Errorf("write %s: %w", final, err)
		}
		return true, nil
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return false, fmt.Errorf("write %s: %w", final, err)
	}
	return true, nil
}

// tokenKey identifies a gateway and role: scheme, host and path of the URL
// (never its query or user info) plus the role.
func tokenKey(gatewayURL, role string) string {
	u, err := url.Parse(gatewayURL)
	if err != nil {
		return gatewayURL + "|" + role
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "http":
		scheme = "ws"
	case "https":
		scheme = "wss"
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == "" {
		port = "80"
		if scheme == "wss" {
			port = "443"
		}
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	return scheme + "://" + host + ":" + port + path + "|" + role
}

func (s *Store) loadTokens() (tokensJSON, error) {
	t := tokensJSON{Version: 1, Tokens: map[string]tokenEntry{}}
	b, err := os.ReadFile(filepath.Join(s.Dir, tokensFile))
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return tokensJSON{Version: 1, Tokens: map[string]tokenEntry{}}, fmt.Errorf("read %s: %v", tokensFile, err)
	}
	if t.Tokens == nil {
		t.Tokens = map[string]tokenEntry{}
	}
	return t, nil
}

// DeviceToken returns the device token stored for this gateway, role and
// device, or "".
func (s *Store) DeviceToken(gatewayURL, role, deviceID string) (token string, scopes []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.loadTokens()
	if err != nil {
		return "", nil
	}
	e, ok := t.Tokens[tokenKey(gatewayURL, role)]
	if !ok || e.DeviceID != deviceID {
		return "", nil
	}
	return e.Token, e.Scopes
}

// SaveDeviceToken keeps the device token a gateway issued. Saving the token
// already stored is a no-op.
func (s *Store) SaveDeviceToken(gatewayURL, role, deviceID, token string, scopes []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, _ := s.loadTokens() // an unreadable file is replaced
	key := tokenKey(gatewayURL, role)
	if e, ok := t.Tokens[key]; ok && e.DeviceID == deviceID && e.Token == token {
		return nil
	}
	t.Tokens[key] = tokenEntry{DeviceID: deviceID, Token: token, Scopes: scopes, SavedAtMs: s.now().UnixMilli()}
	b, _ := json.MarshalIndent(t, "", "  ")
	_, err := s.writeFile(tokensFile, append(b, '\n'), false)
	return err
}

// ForgetDeviceToken removes the stored device token for a gateway and role.
func (s *Store) ForgetDeviceToken(gatewayURL, role string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.loadTokens()
	if err != nil {
		return err
	}
	key := tokenKey(gatewayURL, role)
	if _, ok := t.Tokens[key]; !ok {
		return nil
	}
	delete(t.Tokens, key)
	b, _ := json.MarshalIndent(t, "", "  ")
	_, err = s.writeFile(tokensFile, append(b, '\n'), false)
	return err
}

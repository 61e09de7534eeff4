package jsonx

import "bytes"

// skipFast returns the offset just past the value starting at data[i]
// without validating it: it only tracks strings and nesting. It is for
// input that was already validated (a frame the capture reader accepted);
// on invalid input it returns an error or a wrong offset, never panics.
func skipFast(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, ErrSyntax
	}
	switch data[i] {
	case '"':
		return skipStringFast(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				end, err := skipStringFast(data, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, ErrSyntax
	default:
		// A number or literal ends at the next delimiter.
		j := i
		for j < len(data) {
			switch data[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if j == i {
					return 0, ErrSyntax
				}
				return j, nil
			}
			j++
		}
		return j, nil
	}
}

// skipStringFast finds the closing quote with a vectorised search, counting
// the backslashes before each candidate to see whether it is escaped.
func skipStringFast(data []byte, i int) (int, error) {
	i++
	for {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return 0, ErrSyntax
		}
		q := i + j
		k := q - 1
		for k >= i && data[k] == '\\' {
			k--
		}
		if (q-1-k)%2 == 0 {
			return q + 1, nil
		}
		i = q + 1
	}
}

// objectEachFast is ObjectEach without validation; see skipFast.
func objectEachFast(obj []byte, fn func(key, value []byte) bool) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return ErrSyntax
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return ErrSyntax
		}
		kend, err := skipStringFast(obj, i)
		if err != nil {
			return err
		}
		key := obj[i+1 : kend-1]
		i = skipSpace(obj, kend)
		if i >= len(obj) || obj[i] != ':' {
			return ErrSyntax
		}
		i = skipSpace(obj, i+1)
		vstart := i
		if i, err = skipFast(obj, i); err != nil {
			return err
		}
		if !fn(key, obj[vstart:i]) {
			return nil
		}
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return ErrSyntax
		}
		if obj[i] == '}' {
			return nil
		}
		if obj[i] != ',' {
			return ErrSyntax
		}
		i = skipSpace(obj, i+1)
	}
}

// arrayEachFast is ArrayEach without validation; see skipFast.
func arrayEachFast(arr []byte, fn func(value []byte) bool) error {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return ErrSyntax
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return nil
	}
	for {
		start := i
		var err error
		if i, err = skipFast(arr, i); err != nil {
			return err
		}
		if !fn(arr[start:i]) {
			return nil
		}
		i = skipSpace(arr, i)
		if i >= len(arr) {
			return ErrSyntax
		}
		if arr[i] == ']' {
			return nil
		}
		if arr[i] != ',' {
			return ErrSyntax
		}
		i = skipSpace(arr, i+1)
	}
}

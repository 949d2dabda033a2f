/**
 * A streaming check that input is UTF-8 text: invalid sequences (split across chunk boundaries
 * included) and control bytes that no text file holds (NUL and friends: binary junk) are reported
 * with the line they are on. Written as a byte state machine because `TextDecoder` tells that a
 * chunk is bad but not where.
 */
import { Transform } from "node:stream";

export interface ByteFinding {
  rule: "not-utf8" | "binary";
  line: number;
  message: string;
  /** Bytes of the chunk that hold only complete lines before the bad one (0: it began earlier). */
  goodBytes: number;
}

const LF = 0x0a;

export class ByteChecker {
  private line = 1;
  private need = 0;
  private lower = 0x80;
  private upper = 0xbf;
  /** The first byte of the sequence being read: the one to name when it is cut short. */
  private lead = 0;
  private first = true;
  /** Where the current line starts in the chunk being checked (0 when it began before it). */
  private lineStart = 0;

  /** The first finding in `chunk`, or undefined when the chunk is fine so far. */
  push(chunk: Uint8Array): ByteFinding | undefined {
    this.lineStart = 0;
    if (this.first && chunk.length >= 2) {
      this.first = false;
      const [a, b] = [chunk[0], chunk[1]];
      if ((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff))
        return this.notUtf8("the file is UTF-16 (it starts with a UTF-16 byte order mark)");
    }
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.need > 0) {
        // Name the byte that began the sequence (a Latin-1 "é" is 0xE9), not the one after it.
        if (b < this.lower || b > this.upper)
          return this.notUtf8(
            `byte 0x${hex(this.lead)} is not valid UTF-8 (0x${hex(b)} after it does not continue a UTF-8 character)`,
          );
        this.lower = 0x80;
        this.upper = 0xbf;
        this.need--;
        continue;
      }
      if (b === LF) {
        this.line++;
        this.lineStart = i + 1;
        continue;
      }
      if ((b < 0x20 && b !== 0x09 && b !== 0x0d) || b === 0x7f) return this.binary(b);
      if (b < 0x80) continue;
      this.lead = b;
      if (b < 0xc2 || b > 0xf4) return this.notUtf8(`byte 0x${hex(b)} is not valid UTF-8`);
      if (b <= 0xdf) this.need = 1;
      else if (b === 0xe0) this.start(2, 0xa0, 0xbf);
      else if (b === 0xed) this.start(2, 0x80, 0x9f);
      else if (b >= 0xe1 && b <= 0xef) this.need = 2;
      else if (b === 0xf0) this.start(3, 0x90, 0xbf);
      else if (b === 0xf4) this.start(3, 0x80, 0x8f);
      else if (b >= 0xf1 && b <= 0xf3) this.need = 3;
    }
    return undefined;
  }

  /** Call after the last chunk: a sequence cut off by the end of the file is invalid too. */
  end(): ByteFinding | undefined {
    return this.need > 0 ? this.notUtf8("the file ends inside a UTF-8 sequence") : undefined;
  }

  private start(need: number, lower: number, upper: number): void {
    this.need = need;
    this.lower = lower;
    this.upper = upper;
  }

  private notUtf8(what: string): ByteFinding {
    return {
      rule: "not-utf8",
      line: this.line,
      message: `${what}; save the file as UTF-8 (e.g. "CSV UTF-8" in a spreadsheet) and try again`,
      goodBytes: this.lineStart,
    };
  }

  private binary(b: number): ByteFinding {
    return {
      rule: "binary",
      line: this.line,
      message: `control byte 0x${hex(b)} found: this is not a text file (binary data?)`,
      goodBytes: this.lineStart,
    };
  }
}

const hex = (b: number): string => b.toString(16).padStart(2, "0").toUpperCase();

/** Checks a whole buffer at once (YAML files are read whole). */
export function checkBytes(buf: Uint8Array): ByteFinding | undefined {
  const checker = new ByteChecker();
  return checker.push(buf) ?? checker.end();
}

/** The first bad byte of a file read as a stream: raised once the good lines before it are parsed. */
export class ByteProblem extends Error {
  constructor(readonly finding: ByteFinding) {
    super(finding.message);
  }
}

/**
 * The UTF-8 check as a stream step: bytes pass through until the first bad one; the error is
 * raised at the end, once the good lines before it have been parsed.
 */
export function byteCheckStream(): Transform {
  const checker = new ByteChecker();
  let bad: ByteFinding | undefined;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      // After bad bytes nothing more is parsed; the rest of the file is only read to its end.
      if (bad) return done();
      bad = checker.push(chunk);
      // The complete lines before the bad one are parsed, so their rows are checked too.
      done(null, bad ? chunk.subarray(0, bad.goodBytes) : chunk);
    },
    flush(done) {
      const finding = bad ?? checker.end();
      done(finding ? new ByteProblem(finding) : null);
    },
  });
}

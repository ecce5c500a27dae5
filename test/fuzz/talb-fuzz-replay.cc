/*
 * main() for a fuzz target built without libFuzzer (any compiler, e.g. the sanitizer build):
 * replays every file of the corpus folders and files given, then feeds random mutations of
 * them. It has no coverage feedback -- it finds what blind mutation of good seeds finds -- so
 * it is the regression check of the corpus, and the fuzzing of a machine without clang.
 *
 *   talb-fuzz-replay-NAME [--mutations=N] [--seed=S] [--max-len=L] [--dict=FILE]
 *                         [--artifact=FILE] CORPUS...
 *
 * A crash (signal, sanitizer report or broken invariant) writes the input that caused it to
 * the artifact file (default ./crash-NAME) and prints it in hex when it is short.
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <random>
#include <signal.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define TALB_FUZZ_HAVE_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define TALB_FUZZ_HAVE_SANITIZER 1
#endif
#endif
#ifdef TALB_FUZZ_HAVE_SANITIZER
#include <sanitizer/common_interface_defs.h>
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace
{

using Bytes = std::vector<uint8_t>;

// The input being run, for the crash handlers (they may only make async-signal-safe calls).
const uint8_t* g_current = nullptr;
size_t g_currentSize = 0;
char g_artifact[4096] = "crash";

void
WriteAll(int fd, const void* data, size_t size)
{
    const char* p = static_cast<const char*>(data);
    while (size > 0)
    {
        ssize_t n = write(fd, p, size);
        if (n <= 0)
        {
            return;
        }
        p += n;
        size -= static_cast<size_t>(n);
    }
}

void
DumpCurrentInput()
{
    static const char hex[] = "0123456789abcdef";
    static const char saved[] = "talb-fuzz-replay: crashing input saved to ";
    int fd = open(g_artifact, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
    {
        WriteAll(fd, g_current, g_currentSize);
        close(fd);
        WriteAll(2, saved, sizeof(saved) - 1);
        WriteAll(2, g_artifact, strlen(g_artifact));
        WriteAll(2, "\n", 1);
    }
    if (g_currentSize <= 512)
    {
        static const char label[] = "talb-fuzz-replay: input (hex): ";
        WriteAll(2, label, sizeof(label) - 1);
        for (size_t i = 0; i < g_currentSize; ++i)
        {
            char pair[2] = {hex[g_current[i] >> 4], hex[g_current[i] & 15]};
            WriteAll(2, pair, 2);
        }
        WriteAll(2, "\n", 1);
    }
}

void
OnCrashSignal(int sig)
{
    DumpCurrentInput();
    signal(sig, SIG_DFL);
    raise(sig);
}

/// Runs one input from an exactly sized heap copy, as libFuzzer does.
void
Run(const Bytes& input)
{
    uint8_t* copy = static_cast<uint8_t*>(std::malloc(input.empty() ? 1 : input.size()));
    if (!input.empty())
    {
        std::memcpy(copy, input.data(), input.size());
    }
    g_current = copy;
    g_currentSize = input.size();
    LLVMFuzzerTestOneInput(copy, input.size());
    g_current = nullptr;
    g_currentSize = 0;
    std::free(copy);
}

bool
ReadFile(const std::string& path, Bytes* out)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        return false;
    }
    out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
}

/// Files of a corpus folder (sorted, not recursive), or the path itself when it is a file.
bool
CollectInputs(const std::string& path, std::vector<std::string>* files)
{
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
    {
        return false;
    }
    if (!S_ISDIR(st.st_mode))
    {
        files->push_back(path);
        return true;
    }
    DIR* dir = opendir(path.c_str());
    if (dir == nullptr)
    {
        return false;
    }
    std::vector<std::string> found;
    while (struct dirent* e = readdir(dir))
    {
        std::string name = e->d_name;
        std::string full = path + "/" + name;
        if (name[0] != '.' && stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode))
        {
            found.push_back(full);
        }
    }
    closedir(dir);
    std::sort(found.begin(), found.end());
    files->insert(files->end(), found.begin(), found.end());
    return true;
}

/// A libFuzzer dictionary: one "quoted token" per line (optionally name=), \xNN and \\ escapes.
bool
ReadDictionary(const std::string& path, std::vector<Bytes>* tokens)
{
    std::ifstream in(path);
    if (!in)
    {
        return false;
    }
    std::string line;
    while (std::getline(in, line))
    {
        size_t open = line.find('"');
        size_t close = line.rfind('"');
        if (line.empty() || line[0] == '#' || open == std::string::npos || close <= open)
        {
            continue;
        }
        Bytes token;
        for (size_t i = open + 1; i < close; ++i)
        {
            if (line[i] == '\\' && i + 1 < close && line[i + 1] == 'x' && i + 3 < close)
            {
                token.push_back(
                    static_cast<uint8_t>(std::stoul(line.substr(i + 2, 2), nullptr, 16)));
                i += 3;
            }
            else if (line[i] == '\\' && i + 1 < close)
            {
                token.push_back(static_cast<uint8_t>(line[++i]));
            }
            else
            {
                token.push_back(static_cast<uint8_t>(line[i]));
            }
        }
        tokens->push_back(token);
    }
    return true;
}

/// One to four random edits of input, kept within maxLen bytes.
Bytes
Mutate(const std::vector<Bytes>& corpus,
       const std::vector<Bytes>& dict,
       std::mt19937_64& rng,
       size_t maxLen)
{
    auto below = [&rng](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
    Bytes b = corpus.empty() ? Bytes() : corpus[below(corpus.size())];
    static const uint32_t interesting[] = {0,
                                           1,
                                           2,
                                           7,
                                           8,
                                           15,
                                           16,
                                           0x7F,
                                           0x80,
                                           0xFF,
                                           0x100,
                                           0x7FFF,
                                           0x8000,
                                           0xFFFF,
                                           0x10000,
                                           0x7FFFFFFF,
                                           0x80000000u,
                                           0xFFFFFFFFu};
    size_t edits = 1 + below(4);
    for (size_t e = 0; e < edits; ++e)
    {
        switch (below(b.empty() ? 2 : 8))
        {
        case 0: // insert random bytes
        {
            size_t at = below(b.size() + 1);
            Bytes fresh(1 + below(8));
            for (auto& x : fresh)
            {
                x = static_cast<uint8_t>(rng());
            }
            b.insert(b.begin() + at, fresh.begin(), fresh.end());
            break;
        }
        case 1: // insert a dictionary token, or a piece of another input
        {
            size_t at = below(b.size() + 1);
            if (!dict.empty() && rng() % 2)
            {
                const Bytes& t = dict[below(dict.size())];
                b.insert(b.begin() + at, t.begin(), t.end());
            }
            else if (!corpus.empty())
            {
                const Bytes& other = corpus[below(corpus.size())];
                size_t from = below(other.size() + 1);
                size_t n = below(other.size() - from + 1);
                b.insert(b.begin() + at, other.begin() + from, other.begin() + from + n);
            }
            break;
        }
        case 2: // flip a bit
            b[below(b.size())] ^= static_cast<uint8_t>(1u << below(8));
            break;
        case 3: // random byte
            b[below(b.size())] = static_cast<uint8_t>(rng());
            break;
        case 4: // erase a range
        {
            size_t at = below(b.size());
            size_t n = 1 + below(std::min<size_t>(b.size() - at, 16));
            b.erase(b.begin() + at, b.begin() + at + n);
            break;
        }
        case 5: // interesting value, 1, 2 or 4 bytes big-endian
        {
            uint32_t v = interesting[below(sizeof(interesting) / sizeof(interesting[0]))];
            size_t width = size_t(1) << below(3);
            size_t at = below(b.size());
            for (size_t i = 0; i < width && at + i < b.size(); ++i)
            {
                b[at + i] = static_cast<uint8_t>(v >> (8 * (width - 1 - i)));
            }
            break;
        }
        case 6: // duplicate a range in place
        {
            size_t at = below(b.size());
            size_t n = 1 + below(std::min<size_t>(b.size() - at, 32));
            Bytes piece(b.begin() + at, b.begin() + at + n);
            b.insert(b.begin() + below(b.size() + 1), piece.begin(), piece.end());
            break;
        }
        default: // add or subtract a small number from a byte
            b[below(b.size())] += static_cast<uint8_t>(below(9)) - 4;
            break;
        }
    }
    if (b.size() > maxLen)
    {
        b.resize(maxLen);
    }
    return b;
}

bool
Flag(const std::string& arg, const char* name, std::string* value)
{
    std::string prefix = std::string("--") + name + "=";
    if (arg.compare(0, prefix.size(), prefix) != 0)
    {
        return false;
    }
    *value = arg.substr(prefix.size());
    return true;
}

int
Usage(const char* prog, const std::string& error)
{
    std::fprintf(stderr,
                 "%s: %s\nusage: %s [--mutations=N] [--seed=S] [--max-len=L] [--dict=FILE] "
                 "[--artifact=FILE] CORPUS...\n",
                 prog,
                 error.c_str(),
                 prog);
    return 2;
}

} // namespace

int
main(int argc, char** argv)
{
    uint64_t mutations = 0;
    uint64_t seed = 1;
    size_t maxLen = 4096;
    std::vector<Bytes> dict;
    std::vector<std::string> files;
    std::string base = argv[0];
    base = base.substr(base.rfind('/') + 1);
    std::snprintf(g_artifact, sizeof(g_artifact), "crash-%s", base.c_str());
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        std::string value;
        char* end = nullptr;
        if (Flag(arg, "mutations", &value) || Flag(arg, "seed", &value) ||
            Flag(arg, "max-len", &value))
        {
            unsigned long long n = std::strtoull(value.c_str(), &end, 10);
            if (value.empty() || *end != '\0' || value[0] == '-')
            {
                return Usage(argv[0], "'" + arg + "': expected a non-negative integer");
            }
            if (arg[2] == 'm' && arg[3] == 'u')
            {
                mutations = n;
            }
            else if (arg[2] == 's')
            {
                seed = n;
            }
            else
            {
                maxLen = static_cast<size_t>(n);
            }
        }
        else if (Flag(arg, "dict", &value))
        {
            if (!ReadDictionary(value, &dict))
            {
                return Usage(argv[0], "--dict: cannot read '" + value + "'");
            }
        }
        else if (Flag(arg, "artifact", &value))
        {
            std::snprintf(g_artifact, sizeof(g_artifact), "%s", value.c_str());
        }
        else if (arg.compare(0, 2, "--") == 0 || arg.empty())
        {
            return Usage(argv[0], "unknown option '" + arg + "'");
        }
        else if (!CollectInputs(arg, &files))
        {
            return Usage(argv[0], "cannot read corpus '" + arg + "'");
        }
    }
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL})
    {
        signal(sig, OnCrashSignal);
    }
#ifdef TALB_FUZZ_HAVE_SANITIZER
    __sanitizer_set_death_callback(DumpCurrentInput);
#endif

    std::vector<Bytes> corpus;
    for (const auto& f : files)
    {
        Bytes b;
        if (!ReadFile(f, &b))
        {
            return Usage(argv[0], "cannot read '" + f + "'");
        }
        Run(b);
        corpus.push_back(std::move(b));
    }
    std::mt19937_64 rng(seed);
    for (uint64_t m = 0; m < mutations; ++m)
    {
        Run(Mutate(corpus, dict, rng, maxLen));
    }
    std::printf("%s: %zu corpus inputs and %llu random mutations (seed %llu) ran, no crash\n",
                base.c_str(),
                corpus.size(),
                static_cast<unsigned long long>(mutations),
                static_cast<unsigned long long>(seed));
    return 0;
}

/* gl_funcs.h - the GL entry points the delegate calls, loaded through eglGetProcAddress
 * so the same code runs on the caller's context (desktop GL 4.5 or GLES 3.x, whatever
 * library dispatches it) and on our own headless one. One table per context. */
#ifndef GL_FUNCS_H
#define GL_FUNCS_H

#include <GLES3/gl31.h>

/* X(type, name): member `name` of type `type`, loaded from "gl" #name. */
#define GL_FUNC_LIST(X)                                                       \
  X(PFNGLGETERRORPROC, GetError)                                              \
  X(PFNGLGETSTRINGPROC, GetString)                                            \
  X(PFNGLGETINTEGERVPROC, GetIntegerv)                                        \
  X(PFNGLGETINTEGERI_VPROC, GetIntegeri_v)                                    \
  X(PFNGLCREATESHADERPROC, CreateShader)                                      \
  X(PFNGLSHADERSOURCEPROC, ShaderSource)                                      \
  X(PFNGLCOMPILESHADERPROC, CompileShader)                                    \
  X(PFNGLGETSHADERIVPROC, GetShaderiv)                                        \
  X(PFNGLGETSHADERINFOLOGPROC, GetShaderInfoLog)                              \
  X(PFNGLDELETESHADERPROC, DeleteShader)                                      \
  X(PFNGLCREATEPROGRAMPROC, CreateProgram)                                    \
  X(PFNGLATTACHSHADERPROC, AttachShader)                                      \
  X(PFNGLDETACHSHADERPROC, DetachShader)                                      \
  X(PFNGLLINKPROGRAMPROC, LinkProgram)                                        \
  X(PFNGLGETPROGRAMIVPROC, GetProgramiv)                                      \
  X(PFNGLGETPROGRAMINFOLOGPROC, GetProgramInfoLog)                            \
  X(PFNGLDELETEPROGRAMPROC, DeleteProgram)                                    \
  X(PFNGLUSEPROGRAMPROC, UseProgram)                                          \
  X(PFNGLPROGRAMPARAMETERIPROC, ProgramParameteri)                            \
  X(PFNGLGETPROGRAMBINARYPROC, GetProgramBinary)                              \
  X(PFNGLPROGRAMBINARYPROC, ProgramBinary)                                    \
  X(PFNGLUNIFORM1IPROC, Uniform1i)                                            \
  X(PFNGLUNIFORM2FPROC, Uniform2f)                                            \
  X(PFNGLUNIFORM4FPROC, Uniform4f)                                            \
  X(PFNGLUNIFORM4IPROC, Uniform4i)                                            \
  X(PFNGLGENBUFFERSPROC, GenBuffers)                                          \
  X(PFNGLDELETEBUFFERSPROC, DeleteBuffers)                                    \
  X(PFNGLBINDBUFFERPROC, BindBuffer)                                          \
  X(PFNGLBINDBUFFERBASEPROC, BindBufferBase)                                  \
  X(PFNGLBINDBUFFERRANGEPROC, BindBufferRange)                                \
  X(PFNGLBUFFERDATAPROC, BufferData)                                          \
  X(PFNGLBUFFERSUBDATAPROC, BufferSubData)                                    \
  X(PFNGLMAPBUFFERRANGEPROC, MapBufferRange)                                  \
  X(PFNGLGETBUFFERPARAMETERI64VPROC, GetBufferParameteri64v)                  \
  X(PFNGLUNMAPBUFFERPROC, UnmapBuffer)                                        \
  X(PFNGLCOPYBUFFERSUBDATAPROC, CopyBufferSubData)                            \
  X(PFNGLDISPATCHCOMPUTEPROC, DispatchCompute)                                \
  X(PFNGLMEMORYBARRIERPROC, MemoryBarrier)                                    \
  X(PFNGLACTIVETEXTUREPROC, ActiveTexture)                                    \
  X(PFNGLBINDTEXTUREPROC, BindTexture)                                        \
  X(PFNGLGENTEXTURESPROC, GenTextures)                                        \
  X(PFNGLDELETETEXTURESPROC, DeleteTextures)                                  \
  X(PFNGLTEXSTORAGE2DPROC, TexStorage2D)                                      \
  X(PFNGLTEXSUBIMAGE2DPROC, TexSubImage2D)                                    \
  X(PFNGLPIXELSTOREIPROC, PixelStorei)                                        \
  X(PFNGLTEXPARAMETERIPROC, TexParameteri)                                    \
  X(PFNGLGETTEXLEVELPARAMETERIVPROC, GetTexLevelParameteriv)                  \
  X(PFNGLFINISHPROC, Finish)                                                  \
  X(PFNGLFLUSHPROC, Flush)                                                    \
  X(PFNGLFENCESYNCPROC, FenceSync)                                            \
  X(PFNGLCLIENTWAITSYNCPROC, ClientWaitSync)                                  \
  X(PFNGLDELETESYNCPROC, DeleteSync)                                          \
  X(PFNGLGENQUERIESPROC, GenQueries)                                          \
  X(PFNGLDELETEQUERIESPROC, DeleteQueries)

typedef struct {
#define GL_FUNC_MEMBER(type, name) type name;
  GL_FUNC_LIST(GL_FUNC_MEMBER)
#undef GL_FUNC_MEMBER
} gl_funcs;

#endif
